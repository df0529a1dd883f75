package shop

import (
	"errors"
	"strings"
	"time"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/ratelimit"
	"github.com/affordances-go/affordances/site/safetext"
)

// SignUp is the input of signUp.
type SignUp struct {
	Name     string `json:"name" title:"Your name" description:"the name the shop greets you by" minLength:"1" maxLength:"80"`
	Email    string `json:"email" title:"Email" description:"the email to sign in with" format:"email" maxLength:"254"`
	Password string `json:"password" title:"Password" description:"at least 8 characters" minLength:"8" maxLength:"200" autocomplete:"new-password"`
}

// Validate refuses a name with control characters or of spaces only (it
// is shown to the person, and in summaries of their tokens and orders),
// and a password that is only spaces.
func (in SignUp) Validate() error {
	var errs []error
	switch {
	case safetext.HasUnsafe(in.Name):
		errs = append(errs, site.Invalid("/name", "must not contain control characters"))
	case strings.TrimSpace(in.Name) == "":
		errs = append(errs, site.Invalid("/name", "must not be only spaces"))
	}
	if strings.TrimSpace(in.Password) == "" {
		errs = append(errs, site.Invalid("/password", "must not be only spaces"))
	}
	return errors.Join(errs...)
}

func (a *App) signUpPage() {
	p := a.site.Page("/signup", site.PageOptions{
		Description: "Create an account",
		View:        page("signup.html"),
		Entities:    a.header(),
		Finish: func(r *site.Request, st *site.State) error {
			st.MD = "# Create an account\n\nA name, an email and a password of at least 8 characters.\n"
			st.Nav = []protocol.Nav{{To: "/login", Label: "Sign in", When: "you already have an account"}}
			return nil
		},
	})
	// Account creation is limited like sign-in: per caller (or address)
	// by the site, and it costs a password hash each time.
	limit := ratelimit.Limit{Rate: 5, Per: time.Minute, Burst: 5}
	site.Handle(p, site.Action{
		Name: "signUp", Description: "Create an account and sign in; a guest cart is kept",
		Expose: protocol.ExposePublic, Limit: &limit, NeedsCookies: true, LimitByAddress: true,
	}, a.signUp)
}

func (a *App) signUp(r *site.Request, in SignUp) (site.Done, error) {
	id, err := a.store.CreateUser(r.Context(), in.Email, strings.TrimSpace(in.Name), in.Password)
	if errors.Is(err, ErrEmailTaken) {
		return site.Done{}, site.Invalid("/email", "this email already has an account: sign in instead")
	}
	if err != nil {
		return site.Done{}, err
	}
	u, err := a.store.UserByID(r.Context(), id)
	if err != nil {
		return site.Done{}, err
	}
	if err := a.startSession(r, u); err != nil {
		return site.Done{}, err
	}
	return site.Done{Message: "Welcome, " + u.Name + ". Your account is ready.", Redirect: "/account"}, nil
}
