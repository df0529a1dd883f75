package advertise

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestPeekFormAction_PutsTheBodyBack(t *testing.T) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("_action", "rename")
	mw.WriteField("name", "x")
	mw.Close()
	raw := body.String()
	r := httptest.NewRequest("POST", "/", strings.NewReader(raw))
	r.Header.Set("Content-Type", mw.FormDataContentType())
	if got := PeekFormAction(r, "_action", 1<<20); got != "rename" {
		t.Errorf("multipart: %q", got)
	}
	if b, _ := io.ReadAll(r.Body); string(b) != raw {
		t.Error("the body was not put back whole")
	}
	r = httptest.NewRequest("POST", "/", strings.NewReader("_action=add&qty=1"))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if got := PeekFormAction(r, "_action", 5); got != "" {
		t.Errorf("over the limit: %q", got)
	}
	if b, _ := io.ReadAll(r.Body); string(b) != "_action=add&qty=1" {
		t.Errorf("over the limit, the body became %q", b)
	}
}

func TestWriter_LinkOnlyOnSuccessfulHTML(t *testing.T) {
	for _, c := range []struct {
		ct     string
		status int
		body   string
		link   bool
	}{
		{"text/html; charset=utf-8", 200, "<p>hi", true},
		{"", 200, "<!doctype html><p>hi", true},
		{"application/json", 200, "{}", false},
		{"text/html", 302, "", false},
		{"text/html", 404, "<p>no", false},
	} {
		rec := httptest.NewRecorder()
		w := &Writer{ResponseWriter: rec}
		if c.ct != "" {
			w.Header().Set("Content-Type", c.ct)
		}
		if c.status != 200 {
			w.WriteHeader(c.status)
		}
		w.Write([]byte(c.body))
		if got := rec.Header().Get("Link") == LinkValue; got != c.link {
			t.Errorf("%+v: link %v", c, got)
		}
	}
	var _ http.Flusher = &Writer{}
}

// An application may write its status before any Content-Type, as
// net/http allows: net/http sniffs the type at the first Write, and so
// does the Writer. A status with no body still goes out.
func TestWriter_StatusFirstIsSniffedAtTheFirstWrite(t *testing.T) {
	rec := httptest.NewRecorder()
	w := &Writer{ResponseWriter: rec}
	w.WriteHeader(http.StatusOK)
	w.Write([]byte("<!doctype html><title>x</title>"))
	if rec.Header().Get("Link") != LinkValue || rec.Code != 200 {
		t.Errorf("status first, then HTML: %d, Link %q", rec.Code, rec.Header().Get("Link"))
	}
	rec = httptest.NewRecorder()
	w = &Writer{ResponseWriter: rec}
	w.WriteHeader(http.StatusOK)
	w.Write([]byte(`{"ok":true}`))
	if rec.Header().Get("Link") != "" {
		t.Errorf("status first, then JSON: Link %q", rec.Header().Get("Link"))
	}
	rec = httptest.NewRecorder()
	w = &Writer{ResponseWriter: rec}
	w.WriteHeader(http.StatusCreated)
	w.Finish()
	if rec.Code != http.StatusCreated {
		t.Errorf("a status without a body: %d", rec.Code)
	}
}
