package tasks

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"time"

	"github.com/affordances-go/affordances/client"
	"github.com/affordances-go/affordances/protocol"
)

// GraphAgent is the Affordances path: page graphs read with the
// protocol's media type and calls posted to the page, with the person's
// token, through the project's client (which asks the person on the
// approval page the site names). With Index set, it reads the site index
// before anything else and knows every route's actions from it.
type GraphAgent struct {
	w       *World
	index   *protocol.SiteIndex
	log     Log
	token   *client.Client
	session *client.Client // after SignIn
}

// NewGraphAgent starts an agent on the Affordances path.
func NewGraphAgent(ctx context.Context, w *World, index bool) (*GraphAgent, error) {
	a := &GraphAgent{w: w}
	a.token = a.client(w.Token)
	if index {
		ix, err := a.token.Index(ctx, w.URL)
		if err != nil {
			return nil, err
		}
		a.index = ix
	}
	return a, nil
}

// client is a client whose exchanges are logged, with the person's
// approvals going to them.
func (a *GraphAgent) client(token string) *client.Client {
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, Timeout: 30 * time.Second, Transport: &recorder{log: &a.log, base: http.DefaultTransport}}
	return client.New(client.Options{HTTPClient: hc, Token: token, MaxApprovalWait: 20 * time.Second,
		OnApprovalNeeded: func(ctx context.Context, ap client.SiteApproval) error { return a.w.Approve(ctx, ap.URL) },
		// Signed in as the person, the agent asks them itself (v0's
		// confirmation): they say yes to what the task asked for.
		Approver: func(context.Context, client.Approval) (bool, error) {
			a.w.Approvals++
			return true, nil
		}})
}

func (a *GraphAgent) caller() *client.Client {
	if a.session != nil {
		return a.session
	}
	return a.token
}

// Read implements Agent: it reads a page.
func (a *GraphAgent) Read(ctx context.Context, page string) (*protocol.Graph, error) {
	return a.caller().Graph(ctx, a.w.URL+page)
}

// Call implements Agent: it calls an action.
func (a *GraphAgent) Call(ctx context.Context, page, action string, input any) (*protocol.Delta, error) {
	res, err := a.caller().Call(ctx, a.w.URL+page, action, input)
	var ce *client.Error
	if errors.As(err, &ce) {
		return nil, &CallError{Code: ce.Code, Message: ce.Message}
	}
	if err != nil {
		return nil, err
	}
	return &res.Delta, nil
}

// Route implements Agent: it tells where an action is.
func (a *GraphAgent) Route(action string) string {
	if a.index == nil {
		return ""
	}
	for _, r := range a.index.Routes {
		for _, s := range r.Actions {
			if s.Name == action {
				return r.Route
			}
		}
	}
	return ""
}

// Searchable implements Agent: it tells whether the catalog can be searched.
func (a *GraphAgent) Searchable() bool {
	if a.index == nil {
		return false
	}
	for _, r := range a.index.Routes {
		if r.Route == "/" && strings.Contains(r.Description, "?q=") {
			return true
		}
	}
	return false
}

// SignIn calls signIn, found like any action, with a client of its own
// that keeps the session's cookie and sends the site's Origin.
func (a *GraphAgent) SignIn(ctx context.Context, email, password string) error {
	s := NewScout(a)
	page, err := s.PageOf(ctx, "signIn")
	if err != nil {
		return err
	}
	c := a.client("")
	if _, err := c.Call(ctx, a.w.URL+page, "signIn", map[string]string{"email": email, "password": password}); err != nil {
		return err
	}
	a.session = c
	return nil
}

// Log implements Agent: what the agent sent and read.
func (a *GraphAgent) Log() *Log { return &a.log }

// recorder logs each request's body as written and each answer's body
// as read: what a model on this path would write and read.
type recorder struct {
	log  *Log
	base http.RoundTripper
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var written string
	if req.Body != nil && req.GetBody != nil {
		if b, err := req.GetBody(); err == nil {
			w, _ := io.ReadAll(b)
			written = string(w)
		}
	}
	// The request line counts too: a model writes the URL it asks for.
	written = req.Method + " " + req.URL.RequestURI() + "\n" + written
	part := PartRead
	switch {
	case req.URL.Path == protocol.WellKnownPath:
		part = PartList
	case req.Method == http.MethodPost:
		part = PartAnswer // a call: written is the call, read its answer
	}
	res, err := r.base.RoundTrip(req)
	if err != nil {
		r.log.add(part, written, "")
		return nil, err
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	res.Body = io.NopCloser(bytes.NewReader(body))
	r.log.add(part, written, string(body))
	return res, err
}
