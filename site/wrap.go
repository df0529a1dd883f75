package site

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

// What a wrapped application keeps (see [Site.Wrap]): every request the
// site does not serve itself reaches it unchanged, and its answers gain
// only the headers that are true of them.

// linkValue is the Link header that announces a page's graph.
const linkValue = `<?affordances=1>; rel="affordances"`

// advertise adds the headers of an HTML response for a page with a graph.
func advertise(h http.Header) {
	addVaryAccept(h)
	h.Set("Link", linkValue)
}

// postsLibraryForm reports whether a POST is a form of the library: a form
// whose FormActionField names an action of the page. Any other form (the
// application's own, a method override) belongs to the wrapped
// application. The body is read to find out, up to the site's body limit,
// and put back whole for whoever serves the request; a body over the limit
// is no form of the library.
func (p *Page) postsLibraryForm(r *http.Request) bool {
	if !isForm(r) {
		return false
	}
	limit := p.site.opts.MaxBodyBytes
	if r.ContentLength > limit {
		return false
	}
	head, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	r.Body = readCloser{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
	if err != nil || int64(len(head)) > limit {
		return false
	}
	name := formAction(r.Header.Get("Content-Type"), head)
	return name != "" && p.byName[name] != nil
}

// formAction returns the value of a posted form's FormActionField, or "".
func formAction(contentType string, body []byte) string {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return ""
	}
	if mt != "multipart/form-data" {
		v, _ := url.ParseQuery(string(body))
		return v.Get(FormActionField)
	}
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	for {
		part, err := mr.NextPart()
		if err != nil {
			return ""
		}
		if part.FormName() == FormActionField && part.FileName() == "" {
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

// advertiser passes a wrapped application's answer to a browser on a page
// with a graph, adding the Link header that announces the graph only to a
// successful HTML answer: not to the application's JSON, its redirects or
// its errors.
type advertiser struct {
	http.ResponseWriter
	decided bool
}

func (a *advertiser) decide(status int, body []byte) {
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
		a.Header().Set("Link", linkValue)
	}
}

// WriteHeader implements http.ResponseWriter.
func (a *advertiser) WriteHeader(status int) {
	a.decide(status, nil)
	a.ResponseWriter.WriteHeader(status)
}

// Write implements http.ResponseWriter.
func (a *advertiser) Write(b []byte) (int, error) {
	a.decide(http.StatusOK, b)
	return a.ResponseWriter.Write(b)
}

// Flush implements http.Flusher for an application that streams.
func (a *advertiser) Flush() {
	a.decide(http.StatusOK, nil)
	_ = http.NewResponseController(a.ResponseWriter).Flush()
}

// Hijack implements http.Hijacker for an application that upgrades the
// connection (a WebSocket on a page's URL).
func (a *advertiser) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(a.ResponseWriter).Hijack()
}

// Unwrap lets http.ResponseController reach the server's writer.
func (a *advertiser) Unwrap() http.ResponseWriter { return a.ResponseWriter }
