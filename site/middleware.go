package site

import "net/http"

// middleware wraps a handler the site serves itself in the application's
// middleware: Options.Middleware for every door, and Options.
// PersonMiddleware too for the person's HTML door (pages the site
// renders, the library's form posts). Built once, when the site starts.
func (s *Site) middleware(h http.Handler, person bool) http.Handler {
	if person && s.opts.PersonMiddleware != nil {
		h = s.opts.PersonMiddleware(h)
	}
	if s.opts.Middleware != nil {
		h = s.opts.Middleware(h)
	}
	return h
}

// ResponseWriter returns a writer whose headers are the action's response
// headers ([Request.ResponseHeader]), sent only when the action succeeds:
// for a session library that writes its cookie on an http.ResponseWriter,
// such as gorilla/sessions' session.Save(r.Request, r.ResponseWriter()).
// Its Write and WriteHeader do nothing: an action answers with its
// result, never by writing.
func (r *Request) ResponseWriter() http.ResponseWriter { return headerWriter{r} }

// headerWriter is Request.ResponseWriter.
type headerWriter struct{ r *Request }

func (w headerWriter) Header() http.Header       { return w.r.ResponseHeader() }
func (headerWriter) Write(b []byte) (int, error) { return len(b), nil }
func (headerWriter) WriteHeader(int)             {}
