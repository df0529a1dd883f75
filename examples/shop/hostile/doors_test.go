package hostile_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site/inspector"
	"github.com/affordances-go/affordances/site/ratelimit"
)

// multipartForm encodes fields as multipart/form-data.
func multipartForm(fields ...string) (body, ctype string) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for i := 0; i+1 < len(fields); i += 2 {
		w.WriteField(fields[i], fields[i+1])
	}
	w.Close()
	return b.String(), w.FormDataContentType()
}

// Approval bypass, door by door: an agent's credential needs the person's
// approval on the site whatever the body's format, alone or beside the
// person's cookie; only the person's own form, in their cookie session
// with the site's Origin, confirms on the confirmation page.
func TestHostile_ApprovalWhateverTheDoor(t *testing.T) {
	e := newEnv(t, false)
	e.actors["a-both"] = actor{cookie: e.actors["a"].cookie, token: e.actors["a-token"].token}
	e.actors["a-tab-bearer"] = actor{cookie: e.actors["a"].cookie}
	order := e.orderA
	mpOrder, mpType := multipartForm("_action", "placeOrder", "_confirm", "true")
	mpCancel, mpCancelType := multipartForm("_action", "cancelOrder", "_confirm", "true")
	rows := []row{
		{name: "an agent's JSON call with confirm: true", as: "a-token", path: "/checkout", body: `{"action":"placeOrder","confirm":true}`, status: 428, code: "confirm_required"},
		{name: "an agent's form with _confirm=true", as: "a-token", path: "/checkout", ctype: "form", body: "_action=placeOrder&_confirm=true", status: 428},
		{name: "an agent's multipart form with _confirm=true", as: "a-token", path: "/checkout", ctype: mpType, body: mpOrder, status: 428},
		{name: "an agent's form cancelling an order", as: "a-token", path: order, ctype: "form", body: "_action=cancelOrder&_confirm=true", status: 428},
		{name: "an agent's multipart form cancelling an order", as: "a-token", path: order, ctype: mpCancelType, body: mpCancel, status: 428},
		{name: "an agent's form with a made-up approval", as: "a-token", path: "/checkout", ctype: "form", body: "_action=placeOrder&_confirm=true&_approval=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", status: 428},
		{name: "a form with both the token and the person's cookie", as: "a-both", path: "/checkout", ctype: "form", body: "_action=placeOrder&_confirm=true", status: 428},
		{name: "a multipart form with both", as: "a-both", path: "/checkout", ctype: mpType, body: mpOrder, status: 428},
		{name: "a JSON call with both", as: "a-both", path: "/checkout", body: `{"action":"placeOrder","confirm":true}`, status: 428, code: "confirm_required"},
		{name: "the person's cookie on a JSON call", as: "a", path: "/checkout", body: `{"action":"placeOrder","confirm":true}`, status: 428, code: "confirm_required"},
		{name: "a bearer token after a tab, with the cookie", as: "a-tab-bearer", path: "/checkout", ctype: "form", body: "_action=placeOrder&_confirm=true",
			header: []string{"Authorization", "Bearer\t" + e.actors["a-token"].token}, status: 401},
		{name: "a bare Bearer, with the cookie", as: "a-tab-bearer", path: "/checkout", ctype: "form", body: "_action=placeOrder&_confirm=true",
			header: []string{"Authorization", "Bearer"}, status: 401},
		{name: "the person's form from another site", as: "a", path: "/checkout", ctype: "form", body: "_action=placeOrder&_confirm=true",
			header: []string{"Origin", "https://evil.example"}, status: 403},
		{name: "the person's form marked cross-site", as: "a", path: "/checkout", ctype: "form", body: "_action=placeOrder&_confirm=true",
			header: []string{"Sec-Fetch-Site", "cross-site"}, status: 403},
		{name: "a sign-in form from another site (login CSRF)", as: "anon", path: "/login", ctype: "form",
			body:   "_action=signIn&email=" + url.QueryEscape(shop.OtherEmail) + "&password=" + url.QueryEscape(shop.OtherPassword),
			header: []string{"Origin", "https://evil.example"}, status: 403},
		{name: "the person's own multipart form runs", as: "a", path: "/checkout", ctype: mpType, body: mpOrder, status: 303, mayChange: true},
	}
	n := e.run(rows)

	// MCP: the agent's token, and the person's cookie with the site's
	// Origin, through the store's endpoint: no tool call places an order
	// without the approval.
	ctx := context.Background()
	before := e.shop.Digest(t)
	for _, who := range []struct {
		name   string
		header http.Header
	}{
		{"token", http.Header{"Authorization": {"Bearer " + e.actors["a-token"].token}}},
		{"cookie", http.Header{"Cookie": {e.actors["a"].cookie}, "Origin": {e.shop.URL}}},
		{"both", http.Header{"Authorization": {"Bearer " + e.actors["a-token"].token}, "Cookie": {e.actors["a"].cookie}, "Origin": {e.shop.URL}}},
	} {
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "hostile", Version: "0"}, nil).Connect(ctx,
			&sdk.StreamableClientTransport{Endpoint: e.shop.URL + "/mcp", HTTPClient: &http.Client{Transport: headers{who.header}}}, nil)
		if err != nil {
			t.Fatalf("MCP %s: %v", who.name, err)
		}
		for _, args := range []map[string]any{{}, {"approval": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}, {"approval": e.shop.URL + "/approvals/x"}} {
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "placeOrder", Arguments: args})
			if err != nil || !res.IsError {
				t.Errorf("MCP %s placeOrder %v: %v %+v", who.name, args, err, res)
			}
			n++
		}
		// A forged resumption with an accept and no state the server signed.
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "placeOrder", Arguments: map[string]any{},
			InputResponses: sdk.InputResponseMap{"confirm": &sdk.ElicitResult{Action: "accept"}}})
		if err != nil || !res.IsError {
			t.Errorf("MCP %s forged accept: %v %+v", who.name, err, res)
		}
		n++
		cs.Close()
	}
	if after := e.shop.Digest(t); after != before {
		t.Error("an MCP call changed the store without the person's approval")
	}

	// The inspector (on in development): its form runs calls through the
	// same rule.
	dev := shoptest.StartWith(t, shop.Options{Dev: true, DefaultLimit: ratelimit.PerMinute(100_000, 100_000)})
	demo, _ := dev.Store.UserByEmail(ctx, shop.DemoEmail)
	dev.Store.AddToCart(ctx, shop.CartOwner{UserID: demo}, "TEE-BLK-M", 1)
	sess, _ := dev.Store.CreateSession(ctx, demo)
	devBefore := dev.Digest(t)
	for _, h := range [][]string{
		{"Authorization", "Bearer " + dev.Token},
		{"Cookie", "sid=" + sess, "Origin", dev.URL},
		{"Authorization", "Bearer " + dev.Token, "Cookie", "sid=" + sess, "Origin", dev.URL},
	} {
		form := url.Values{"page": {"/checkout"}, "action": {"placeOrder"}, "input": {"{}"}, "confirm": {"true"}}
		req, _ := http.NewRequest("POST", dev.URL+inspector.Path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for i := 0; i+1 < len(h); i += 2 {
			req.Header.Set(h[i], h[i+1])
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		b.ReadFrom(res.Body)
		res.Body.Close()
		if !strings.Contains(b.String(), string(protocol.CodeConfirmRequired)) {
			t.Errorf("inspector %v: no confirm_required", h)
		}
		n++
	}
	if dev.Digest(t) != devBefore {
		t.Error("the inspector placed an order without the person's approval")
	}
	counts["approval by every door"] = n
}

// headers adds headers to every request of an MCP client.
type headers struct{ h http.Header }

func (t headers) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.h {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}
