// Package sitetest tests an Affordances site in process, without a
// network: fetch a page's graph or HTML, call an action as an agent (by
// bearer token or by cookie, with the site's Origin), post an HTML form,
// and decode the delta. Cookies the site sets are kept between requests,
// as a browser keeps them, so a sign-in action signs the client in.
//
//	c := sitetest.New(t, mySite)
//	g := c.Graph("/products/tee")
//	res := c.Call("/products/tee", "addToCart", map[string]any{"sku": "TEE-M"})
//	if res.ErrorCode() != "ok" { ... }
//
// A failed expectation of the helpers that decode (Graph, Response.Delta)
// fails the test with the response's status and body. For limits in time,
// give the site's limiter a [Clock] and advance it instead of sleeping.
package sitetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/protocol"
)

// DefaultBase is the scheme and host of the requests a [Client] sends
// unless [Client.Base] says otherwise.
const DefaultBase = "http://example.com"

// Client sends requests to a handler in process. Its fields may be changed
// between requests; a Client is not safe for concurrent use (make one per
// goroutine: they can share the handler).
type Client struct {
	// Base is the scheme and host of every request, and the Origin of the
	// calls and forms it posts. Default: [DefaultBase].
	Base string
	// Bearer, when set, is sent as Authorization: Bearer on every request.
	Bearer string
	// Jar keeps the cookies the site sets and sends them back.
	Jar http.CookieJar
	// CheckDeltas makes every successful Call read the page's graph again,
	// with the same credentials, and fail the test when an entity of the
	// delta's changed differs from what the page now shows: a handler that
	// reports a change a reload does not show (a sign-out that leaves the
	// caller's token working) is caught. The extra read runs the page's
	// loader once more.
	CheckDeltas bool

	tb testing.TB
	h  http.Handler
}

// New returns a client of h with an empty cookie jar. tb may be nil
// outside a test (in an Example): a failed expectation then panics with
// its message.
func New(tb testing.TB, h http.Handler) *Client {
	jar, _ := cookiejar.New(nil) // cookiejar.New with no options cannot fail
	if tb == nil {
		tb = outsideTest{}
	}
	return &Client{Base: DefaultBase, Jar: jar, tb: tb, h: h}
}

// outsideTest stands in for a test where there is none: the helpers use
// only these three methods.
type outsideTest struct{ testing.TB }

func (outsideTest) Helper()                           {}
func (outsideTest) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (outsideTest) Errorf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

// Option changes one request.
type Option func(*http.Request)

// Header sets request headers, given as name, value pairs. An empty value
// removes the header, such as the Origin a client adds to its posts:
//
//	c.CallBody("/cart", body, sitetest.Header("Origin", ""))
func Header(pairs ...string) Option {
	if len(pairs)%2 != 0 {
		panic("sitetest.Header: headers must be name, value pairs")
	}
	return func(r *http.Request) {
		for i := 0; i < len(pairs); i += 2 {
			if pairs[i+1] == "" {
				r.Header.Del(pairs[i])
				continue
			}
			r.Header.Set(pairs[i], pairs[i+1])
		}
	}
}

// SetCookie stores a cookie in the client's jar, as if the site had set it.
func (c *Client) SetCookie(name, value string) {
	u, err := url.Parse(c.base())
	if err != nil {
		c.tb.Fatalf("sitetest: Base %q: %v", c.Base, err)
	}
	c.Jar.SetCookies(u, []*http.Cookie{{Name: name, Value: value, Path: "/"}})
}

// Get sends a GET of path (and query) as a browser would, with no Accept
// header of the protocol.
func (c *Client) Get(path string, opts ...Option) *Response {
	return c.Do(http.MethodGet, path, nil, opts...)
}

// Graph fetches the graph of the page at path and fails the test when the
// answer is not a graph with status 200.
func (c *Client) Graph(path string, opts ...Option) protocol.Graph {
	c.tb.Helper()
	res := c.Do(http.MethodGet, path, nil, append([]Option{Header("Accept", protocol.MediaType)}, opts...)...)
	return res.Graph()
}

// Index fetches the site index and fails the test when it is not one.
func (c *Client) Index(opts ...Option) protocol.SiteIndex {
	c.tb.Helper()
	res := c.Do(http.MethodGet, protocol.WellKnownPath, nil, opts...)
	var idx protocol.SiteIndex
	res.decode(http.StatusOK, &idx)
	return idx
}

// CallOption changes the body of one call.
type CallOption func(*protocol.Call)

// Confirm sends the call with "confirm": true, as a client does once a
// person approved a confirm action.
func Confirm() CallOption { return func(c *protocol.Call) { c.Confirm = true } }

// Call calls the named action of the page at path as an agent, with input
// encoded as JSON (nil sends no input).
func (c *Client) Call(path, action string, input any, opts ...CallOption) *Response {
	c.tb.Helper()
	call := protocol.Call{Action: action}
	if input != nil {
		b, err := json.Marshal(input)
		if err != nil {
			c.tb.Fatalf("sitetest: encoding the input of %s: %v", action, err)
		}
		call.Input = b
	}
	for _, o := range opts {
		o(&call)
	}
	body, err := json.Marshal(call)
	if err != nil {
		c.tb.Fatalf("sitetest: encoding the call of %s: %v", action, err)
	}
	res := c.CallBody(path, string(body))
	if c.CheckDeltas && res.Code == http.StatusOK && res.IsDocument() {
		c.checkDelta(path, action, res.Delta())
	}
	return res
}

// checkDelta compares a delta's changed entities with the page as a
// reload shows it.
func (c *Client) checkDelta(path, action string, d protocol.Delta) {
	c.tb.Helper()
	if len(d.Changed) == 0 {
		return
	}
	res := c.Do(http.MethodGet, path, nil, Header("Accept", protocol.MediaType))
	var now map[string]any
	switch {
	case res.Code == http.StatusOK:
		now = res.Graph().Entities
	case res.Code == http.StatusNotFound:
		// the page is gone: every changed entity must be null
	default:
		c.tb.Errorf("sitetest: %s of %s: reading the page again answered %d", action, path, res.Code)
		return
	}
	for k, v := range d.Changed {
		if !sameJSON(v, now[k]) {
			c.tb.Errorf("sitetest: %s of %s reported %s = %s, but the page now shows %s",
				action, path, k, jsonText(v), jsonText(now[k]))
		}
	}
}

func sameJSON(a, b any) bool { return jsonText(a) == jsonText(b) }

// jsonText writes v as canonical JSON (object keys sorted), for comparing.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var x any
	if json.Unmarshal(b, &x) != nil {
		return string(b)
	}
	b, _ = json.Marshal(x)
	return string(b)
}

// CallBody posts body as an agent's call, exactly as given: for tests of
// malformed, oversized or hostile calls.
func (c *Client) CallBody(path, body string, opts ...Option) *Response {
	return c.Do(http.MethodPost, path, strings.NewReader(body),
		append([]Option{Header("Content-Type", protocol.MediaType)}, opts...)...)
}

// PostForm posts an HTML form to the page at path, as a person's browser
// does; name the action with the field "_action".
func (c *Client) PostForm(path string, form url.Values, opts ...Option) *Response {
	return c.Do(http.MethodPost, path, strings.NewReader(form.Encode()),
		append([]Option{Header("Content-Type", "application/x-www-form-urlencoded")}, opts...)...)
}

// Do sends any request. Posts carry the client's Origin; the bearer token
// and the jar's cookies go with every request; options apply last.
func (c *Client) Do(method, path string, body io.Reader, opts ...Option) *Response {
	r := httptest.NewRequest(method, c.base()+path, body)
	if method == http.MethodPost {
		r.Header.Set("Origin", c.base())
	}
	if c.Bearer != "" {
		r.Header.Set("Authorization", "Bearer "+c.Bearer)
	}
	if c.Jar != nil {
		for _, ck := range c.Jar.Cookies(r.URL) {
			r.AddCookie(ck)
		}
	}
	for _, o := range opts {
		o(r)
	}
	w := httptest.NewRecorder()
	c.h.ServeHTTP(w, r)
	if c.Jar != nil {
		if cs := w.Result().Cookies(); len(cs) > 0 {
			c.Jar.SetCookies(r.URL, cs)
		}
	}
	return &Response{ResponseRecorder: w, tb: c.tb}
}

func (c *Client) base() string {
	if c.Base == "" {
		return DefaultBase
	}
	return strings.TrimSuffix(c.Base, "/")
}

// Response is a recorded response, with decoders for the protocol's
// documents.
type Response struct {
	*httptest.ResponseRecorder
	tb testing.TB
}

// IsDocument reports whether the response is an Affordances document.
func (r *Response) IsDocument() bool {
	return r.Header().Get("Content-Type") == protocol.MediaType
}

// Delta decodes the response as a delta, and fails the test when it is
// not one.
func (r *Response) Delta() protocol.Delta {
	r.tb.Helper()
	var d protocol.Delta
	r.decode(0, &d)
	return d
}

// ErrorCode returns the error code of the delta, or "ok" for a delta that
// succeeded; it fails the test when the response is not a delta.
func (r *Response) ErrorCode() string {
	r.tb.Helper()
	d := r.Delta()
	if d.Error == nil {
		return "ok"
	}
	return string(d.Error.Code)
}

// Graph decodes the response as a graph, and fails the test unless its
// status is 200.
func (r *Response) Graph() protocol.Graph {
	r.tb.Helper()
	var g protocol.Graph
	r.decode(http.StatusOK, &g)
	return g
}

// decode reads an Affordances document into v; want is the status it must
// have (0: any).
func (r *Response) decode(want int, v any) {
	r.tb.Helper()
	if want != 0 && r.Code != want {
		r.tb.Fatalf("sitetest: status %d, want %d:\n%s", r.Code, want, r.Body)
	}
	if !r.IsDocument() {
		r.tb.Fatalf("sitetest: %d %s, want an Affordances document:\n%s", r.Code, r.Header().Get("Content-Type"), r.Body)
	}
	dec := json.NewDecoder(bytes.NewReader(r.Body.Bytes()))
	if err := dec.Decode(v); err != nil {
		r.tb.Fatalf("sitetest: decoding %T: %v\n%s", v, err, r.Body)
	}
}

// Entity decodes the entity called name of a graph into a T, such as the
// site's own entity type, and fails the test when the graph has no such
// entity or it does not decode.
func Entity[T any](tb testing.TB, g protocol.Graph, name string) T {
	tb.Helper()
	var v T
	x, ok := g.Entities[name]
	if !ok {
		tb.Fatalf("sitetest: the graph of %s has no entity %q", g.Page, name)
	}
	b, err := json.Marshal(x)
	if err == nil {
		err = json.Unmarshal(b, &v)
	}
	if err != nil {
		tb.Fatalf("sitetest: entity %q of %s as %T: %v", name, g.Page, v, err)
	}
	return v
}
