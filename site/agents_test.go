package site_test

import (
	"crypto/ed25519"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/botauth"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/ratelimit"
)

// A site that verifies agents: a signed request names its agent to the
// site's code, a wrong signature is refused with its reason, an unsigned
// request is served as before, and a signed anonymous agent has one rate
// limit wherever it calls from.
func TestAgents_VerifiedSignedAndRefused(t *testing.T) {
	_, key, _ := ed25519.GenerateKey(nil)
	verifier := &botauth.Verifier{Keys: []botauth.Key{{Name: "shopper-bot", Public: key.Public().(ed25519.PublicKey)}}}
	s := site.New(site.Options{Agents: verifier, Limits: site.LimitOptions{Default: ratelimit.PerMinute(2, 2)}})
	p := s.Page("/", site.PageOptions{Description: "home", Load: func(r *site.Request) (*site.State, error) {
		return withEntities(&site.State{}, map[string]any{"agent": r.Caller.Agent}), nil
	}})
	site.Handle(p, site.Action{Name: "hello", Expose: protocol.ExposePublic},
		func(r *site.Request, _ struct{}) (site.Result[struct{}], error) {
			return site.Result[struct{}]{Message: "hello " + r.Caller.Agent}, nil
		})
	signer := &botauth.Signer{Key: key}
	do := func(method, body, addr string, sign bool, tamper func(*http.Request)) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, "https://shop.example/", strings.NewReader(body))
		r.RemoteAddr = addr + ":1234"
		r.Header.Set("Accept", protocol.MediaType)
		if body != "" {
			r.Header.Set("Content-Type", protocol.MediaType)
		}
		if sign {
			if err := signer.Sign(r); err != nil {
				t.Fatal(err)
			}
		}
		if tamper != nil {
			tamper(r)
		}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		return w
	}
	if w := do("GET", "", "192.0.2.1", true, nil); w.Code != 200 || !strings.Contains(w.Body.String(), `"agent":"shopper-bot"`) {
		t.Errorf("signed graph: %d %s", w.Code, w.Body)
	}
	if w := do("GET", "", "192.0.2.1", false, nil); w.Code != 200 || !strings.Contains(w.Body.String(), `"agent":""`) {
		t.Errorf("unsigned graph: %d %s", w.Code, w.Body)
	}
	bad := func(r *http.Request) { r.Host = "evil.example" }
	for _, m := range []string{"GET", "POST"} {
		body := ""
		if m == "POST" {
			body = `{"action":"hello"}`
		}
		w := do(m, body, "192.0.2.1", true, bad)
		if w.Code != 401 || !strings.Contains(w.Body.String(), "agent signature is not valid") || !strings.Contains(w.Body.String(), "does not match") {
			t.Errorf("%s with a wrong signature: %d %s", m, w.Code, w.Body)
		}
	}
	// The signed agent's calls share one limit across addresses (2 a minute).
	codes := []int{}
	for i, addr := range []string{"192.0.2.10", "192.0.2.11", "192.0.2.12"} {
		w := do("POST", `{"action":"hello"}`, addr, true, nil)
		codes = append(codes, w.Code)
		if i == 0 && !strings.Contains(w.Body.String(), "hello shopper-bot") {
			t.Errorf("the action saw: %s", w.Body)
		}
	}
	if codes[0] != 200 || codes[1] != 200 || codes[2] != 429 {
		t.Errorf("a signed agent from three addresses: %v, want 200 200 429", codes)
	}
	// Unsigned callers from other addresses are not limited by it.
	if w := do("POST", `{"action":"hello"}`, "192.0.2.20", false, nil); w.Code != 200 {
		t.Errorf("an unsigned caller: %d", w.Code)
	}
}
