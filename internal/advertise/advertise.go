// Package advertise is what a wrapped application's answers gain from
// the site (see site.Site.Wrap): the Link header that announces a page's
// graph, added only where it is true, and a look at a posted form that
// leaves its body whole for the application.
package advertise

import (
	"bufio"
	"bytes"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
)

// LinkValue is the Link header that announces a page's graph.
const LinkValue = `<?affordances=1>; rel="affordances"`

// PeekFormAction reads a posted form's body, up to limit bytes, and puts
// it back whole for whoever serves the request; it returns the value of
// the form's field (the action a library form names), or "" for a body
// over the limit or without the field.
func PeekFormAction(r *http.Request, field string, limit int64) string {
	if r.ContentLength > limit {
		return ""
	}
	head, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	r.Body = readCloser{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
	if err != nil || int64(len(head)) > limit {
		return ""
	}
	return formAction(r.Header.Get("Content-Type"), field, head)
}

// formAction returns the value of a posted form's field, the action
// the form names, or "".
func formAction(contentType, field string, body []byte) string {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return ""
	}
	if mt != "multipart/form-data" {
		v, _ := url.ParseQuery(string(body))
		return v.Get(field)
	}
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	for {
		part, err := mr.NextPart()
		if err != nil {
			return ""
		}
		if part.FormName() == field && part.FileName() == "" {
			b, _ := io.ReadAll(io.LimitReader(part, 256))
			return string(b)
		}
	}
}

// readCloser is a body put back after a peek: the bytes read first, then
// the rest, closed as the original.
type readCloser struct {
	io.Reader
	io.Closer
}

// Writer passes a wrapped application's answer to a browser on a page
// with a graph, adding the Link header that announces the graph only to a
// successful HTML answer: not to the application's JSON, its redirects or
// its errors.
//
// Like net/http, it decides at the first Write when the application wrote
// its status before any Content-Type: the status waits for the body, whose
// type net/http sniffs; Finish sends a status that no body followed.
type Writer struct {
	http.ResponseWriter
	// More are Link values added beside the graph's (the AI catalog's).
	More    []string
	decided bool
	pending int // a status written before any Content-Type, not sent yet
}

func (a *Writer) decide(status int, body []byte) {
	if a.decided || status < 200 {
		return // an informational answer (103) comes before the real one
	}
	a.decided = true
	if status >= 300 || status == http.StatusNoContent {
		return
	}
	ct := a.Header().Get("Content-Type")
	if ct == "" && body != nil {
		ct = http.DetectContentType(body) // what net/http will send
	}
	if mt, _, err := mime.ParseMediaType(ct); err == nil && mt == "text/html" {
		a.Header().Set("Link", LinkValue)
		for _, l := range a.More {
			a.Header().Add("Link", l)
		}
	}
}

// WriteHeader implements http.ResponseWriter.
func (a *Writer) WriteHeader(status int) {
	if !a.decided && a.pending == 0 && status >= 200 && status < 300 && status != http.StatusNoContent && a.Header().Get("Content-Type") == "" {
		a.pending = status // net/http sniffs the type at the first Write: so does the decision
		return
	}
	a.decide(status, nil)
	a.ResponseWriter.WriteHeader(status)
}

// send sends the pending status, decided on the body's first bytes.
func (a *Writer) send(body []byte) {
	if a.pending == 0 {
		return
	}
	status := a.pending
	a.pending = 0
	a.decide(status, body)
	a.ResponseWriter.WriteHeader(status)
}

// Write implements http.ResponseWriter.
func (a *Writer) Write(b []byte) (int, error) {
	a.send(b)
	a.decide(http.StatusOK, b)
	return a.ResponseWriter.Write(b)
}

// Flush implements http.Flusher for an application that streams.
func (a *Writer) Flush() {
	a.send(nil)
	a.decide(http.StatusOK, nil)
	_ = http.NewResponseController(a.ResponseWriter).Flush()
}

// Finish sends a status the application wrote and no body followed; the
// site calls it when the application's handler returns.
func (a *Writer) Finish() { a.send(nil) }

// Hijack implements http.Hijacker for an application that upgrades the
// connection (a WebSocket on a page's URL).
func (a *Writer) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(a.ResponseWriter).Hijack()
}

// Unwrap lets http.ResponseController reach the server's writer.
func (a *Writer) Unwrap() http.ResponseWriter { return a.ResponseWriter }
