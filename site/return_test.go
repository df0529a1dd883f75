package site_test

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/sitetest"
)

// After signing in, a person goes back to the page that sent them, when
// it is a page of this site; any other address is ignored.
func TestReturnPath_OnlyThisSite(t *testing.T) {
	for next, want := range map[string]string{
		"/checkout":              "/checkout",
		"/approvals/abc?x=1":     "/approvals/abc?x=1",
		"":                       "/account",
		"//evil.example/":        "/account",
		"https://evil.example/":  "/account",
		"/\\evil.example":        "/account",
		"/ok\r\nSet-Cookie: a=b": "/account",
		"javascript:alert(1)":    "/account",
	} {
		hr := httptest.NewRequest("POST", "/login?"+site.ReturnParam+"="+escape(next), nil)
		if got := (&site.Request{Request: hr}).ReturnPath("/account"); got != want {
			t.Errorf("next=%q: %q, want %q", next, got, want)
		}
	}
	if got := site.WithReturn("/login", "/approvals/abc"); got != "/login?next=%2Fapprovals%2Fabc" {
		t.Errorf("WithReturn: %s", got)
	}
	if got := site.WithReturn("/login?lang=en", "//evil.example"); got != "/login?lang=en" {
		t.Errorf("WithReturn of another site: %s", got)
	}
}

// The approval page of a person who is not signed in links to sign in
// with the way back to it.
func TestApprovalPage_SignInComesBack(t *testing.T) {
	sh := newApprovalShop(t, time.Minute)
	c := sitetest.New(t, sh.site)
	_, approvalURL, _ := ask(t, c, "agent-a", "gift", "")
	res := sitetest.New(t, sh.site).Get(approvalURL) // no session
	if !strings.Contains(res.Body.String(), `href="/login?next=%2Fapprovals%2F`) {
		t.Errorf("the sign-in link does not come back:\n%s", res.Body)
	}
}

func escape(s string) string {
	r := strings.NewReplacer("%", "%25", "&", "%26", "#", "%23", "+", "%2B", " ", "%20", "\r", "%0D", "\n", "%0A", "\\", "%5C", "?", "%3F")
	return r.Replace(s)
}
