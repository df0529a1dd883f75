package presence

import (
	"crypto/sha512"
	_ "embed" // the pages' script
	"encoding/base64"
	"encoding/json"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"

	"github.com/affordances-go/affordances/site"
)

//go:embed presence.js
var script []byte

// The paths Mount serves.
const (
	// Path is the challenge of a people-only form: a POST of the fields
	// the form will post, and _page, its page's path.
	Path = "/_affordances/presence"
	// RegisterPath is the options of a new passkey (a POST).
	RegisterPath = Path + "/register"
	// SignInPath is the options of a sign-in with a passkey (a POST).
	SignInPath = Path + "/signin"
	// ScriptPath is the pages' script (site.PresenceScriptPath).
	ScriptPath = site.PresenceScriptPath
)

// ScriptIntegrity is the script's Subresource Integrity value.
var ScriptIntegrity = func() string {
	h := sha512.Sum384(script)
	return "sha384-" + base64.StdEncoding.EncodeToString(h[:])
}()

// ScriptTag is the script's tag, for the <head> of the pages with
// people-only forms, the approval page and the sign-in page.
var ScriptTag = template.HTML(`<script src="` + ScriptPath + `" integrity="` + ScriptIntegrity + `" defer></script>`)

// Mount serves what the pages' script asks for on s: the challenge of a
// people-only form (Path), the options of a new passkey (RegisterPath)
// and of a sign-in (SignInPath), and the script (ScriptPath). Challenges
// are given only to a request with the site's Origin; a new passkey's
// options only to a signed-in person. Plug p into the site with
// site.Options.Presence as well.
func Mount(s *site.Site, p *Passkeys, logger *slog.Logger) {
	if logger == nil {
		logger = slog.Default()
	}
	m := &mounted{s: s, p: p, log: logger}
	s.Mount(Path, http.HandlerFunc(m.challenge))
	s.Mount(RegisterPath, http.HandlerFunc(m.register))
	s.Mount(SignInPath, http.HandlerFunc(m.signIn))
	s.Mount(ScriptPath, http.HandlerFunc(serveScript))
}

type mounted struct {
	s   *site.Site
	p   *Passkeys
	log *slog.Logger
}

// guard answers a request that may not ask: not a POST, or not from this
// site; it returns the request's form.
func (m *mounted) guard(w http.ResponseWriter, hr *http.Request) (url.Values, bool) {
	w.Header().Set("Cache-Control", "no-store")
	if hr.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return nil, false
	}
	if hr.Header.Get("Origin") == "" || m.s.CheckOrigin(hr) != nil {
		http.Error(w, "a challenge is given to this site's own pages only", http.StatusForbidden)
		return nil, false
	}
	hr.Body = http.MaxBytesReader(w, hr.Body, m.s.MaxBodyBytes())
	if err := hr.ParseForm(); err != nil {
		http.Error(w, "the form could not be read", http.StatusBadRequest)
		return nil, false
	}
	return hr.PostForm, true
}

// challenge answers the challenge of a people-only form: {} when the
// person has no passkey.
func (m *mounted) challenge(w http.ResponseWriter, hr *http.Request) {
	form, ok := m.guard(w, hr)
	if !ok {
		return
	}
	page := form.Get("_page")
	form.Del("_page")
	r, b, err := m.s.FormPresence(hr, page, form)
	if err != nil {
		m.fail(w, hr, err)
		return
	}
	if !r.Caller.SignedIn {
		http.Error(w, "sign in first", http.StatusUnauthorized)
		return
	}
	ask, err := m.p.Challenge(r, b)
	m.answer(w, hr, ask, err)
}

// register answers the options of a new passkey for the signed-in person.
func (m *mounted) register(w http.ResponseWriter, hr *http.Request) {
	if _, ok := m.guard(w, hr); !ok {
		return
	}
	r, err := m.s.NewRequest(hr)
	if err != nil {
		m.fail(w, hr, err)
		return
	}
	if !r.Caller.SignedIn || r.Caller.Mode != "cookie" {
		http.Error(w, "sign in first, in this browser", http.StatusUnauthorized)
		return
	}
	ask, err := m.p.Register(hr.Context(), r.Caller.AccountID())
	m.answer(w, hr, ask, err)
}

// signIn answers the options of a sign-in with a passkey.
func (m *mounted) signIn(w http.ResponseWriter, hr *http.Request) {
	if _, ok := m.guard(w, hr); !ok {
		return
	}
	ask, err := m.p.SignIn(hr.Context())
	m.answer(w, hr, ask, err)
}

func (m *mounted) answer(w http.ResponseWriter, hr *http.Request, ask json.RawMessage, err error) {
	if err != nil {
		m.fail(w, hr, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(ask)
}

// fail answers an error: the site's own with its status, else 500, logged.
func (m *mounted) fail(w http.ResponseWriter, hr *http.Request, err error) {
	var st interface {
		Status() int
		Message() string
	}
	if errors.As(err, &st) {
		http.Error(w, st.Message(), st.Status())
		return
	}
	m.log.ErrorContext(hr.Context(), "affordances: presence", "path", hr.URL.Path, "err", err)
	http.Error(w, "Internal Server Error", http.StatusInternalServerError)
}

// serveScript serves the pages' script, cached by browsers for an hour.
func serveScript(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/javascript; charset=utf-8")
	h.Set("Cache-Control", "public, max-age=3600")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(script)))
	if r.Method != http.MethodHead {
		w.Write(script)
	}
}
