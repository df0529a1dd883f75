package recipes

// The whole adoption of Affordances: the application's pages as graphs,
// its sign-in and recipes as actions, API tokens from the token kit, and
// MCP. The app's own sessions (scs) and CSRF check (nosurf) run for the
// site's requests too.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"

	"github.com/go-sql-driver/mysql"
	"github.com/justinas/nosurf"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/mcp"
	"github.com/affordances-go/affordances/site/tokens"
)

var (
	recipesKey = site.NewKey[[]Recipe]("recipes")
	recipeKey  = site.NewKey[Recipe]("recipe")
)

// WithAgents returns the application's handler with Affordances in front.
func (app *App) WithAgents(ctx context.Context) (http.Handler, error) {
	store := tokens.NewSQL(app.DB, tokens.MySQL, "")
	if err := store.Migrate(ctx); err != nil {
		return nil, err
	}
	kit := tokens.New(store, tokens.Options{Actions: []tokens.Choice{
		{Action: "createRecipe", Words: "write recipes"}, {Action: "signOut", Words: "sign out"}}})
	s := site.New(site.Options{
		Name:             "Recipes",
		AuthModes:        []protocol.AuthMode{protocol.AuthCookie, protocol.AuthBearer},
		Middleware:       app.Sessions.LoadAndSave,
		PersonMiddleware: noSurf,
		FormFields:       func(r *http.Request) map[string]string { return map[string]string{"csrf_token": nosurf.Token(r)} },
		Auth: site.AuthFunc(func(r *http.Request) (site.Caller, error) {
			if c, ok, err := kit.Caller(r); ok {
				return c, err
			}
			return app.sessionCaller(r)
		}),
		// The application's code finds its user where it always does.
		CallerContext: func(r *http.Request, c site.Caller) context.Context {
			id, _ := strconv.Atoi(c.Account)
			return context.WithValue(r.Context(), userIDKey, id)
		},
		// MariaDB going away for a moment is a retry (503), not a 500.
		Unreachable: unreachable,
	})
	app.Head = s.Link // the app's pages announce their graphs, where they have one
	app.agentPages(s)
	kit.Mount(s, "/account/tokens", tokens.MountOptions{})
	mcp.Mount(s, "/mcp", nil)
	return s.Wrap(app.Routes()), nil
}

// sessionCaller is the caller of the scs session the middleware loaded.
func (app *App) sessionCaller(r *http.Request) (site.Caller, error) {
	if _, err := r.Cookie(app.Sessions.Cookie.Name); err != nil {
		return site.Caller{}, nil
	}
	id := app.Sessions.GetInt(r.Context(), "authenticatedUserID")
	if ok, err := app.userExists(r.Context(), id); err != nil || !ok {
		return site.Caller{Mode: protocol.AuthCookie}, err
	}
	h := sha256.Sum256([]byte(app.Sessions.Token(r.Context())))
	return site.Caller{ID: "sess:" + hex.EncodeToString(h[:8]), Account: strconv.Itoa(id), Mode: protocol.AuthCookie, SignedIn: true}, nil
}

// RecipeInput is a recipe an agent writes.
type RecipeInput struct {
	Title       string `json:"title" minLength:"1" maxLength:"100"`
	Ingredients string `json:"ingredients" minLength:"1" maxLength:"5000" description:"one per line"`
	Method      string `json:"method" minLength:"1" maxLength:"20000"`
}

// Validate applies the application's own rules.
func (in RecipeInput) Validate() error {
	var errs []error
	for field, msg := range CheckRecipe(in.Title, in.Ingredients, in.Method) {
		errs = append(errs, site.Invalid(field, msg))
	}
	return errors.Join(errs...)
}

// SignInInput is the sign-in form's input.
type SignInInput struct {
	Email    string `json:"email" format:"email" maxLength:"255"`
	Password string `json:"password" minLength:"1" maxLength:"200"`
}

func (app *App) agentPages(s *site.Site) {
	s.Page("/", site.PageOptions{Description: "The latest recipes", Entities: []site.EntityLoader{
		site.Entity(recipesKey, func(r *site.Request) ([]Recipe, error) { return app.LatestRecipes(r.Context()) })}})
	s.Page("/recipe/view/{id}", site.PageOptions{Description: "One recipe", Entities: []site.EntityLoader{
		site.Entity(recipeKey, func(r *site.Request) (Recipe, error) {
			id, err := strconv.Atoi(r.PathValue("id"))
			if err != nil {
				return Recipe{}, site.ErrNotFound
			}
			rec, err := app.GetRecipe(r.Context(), id)
			if errors.Is(err, ErrNoRecord) {
				return Recipe{}, site.ErrNotFound
			}
			return rec, err
		})}})
	create := s.Page("/recipe/create", site.PageOptions{Description: "Write a recipe"})
	site.Handle(create, site.Action{Name: "createRecipe", Description: "Write a recipe", Expose: protocol.ExposeSession},
		func(r *site.Request, in RecipeInput) (site.Result[Recipe], error) {
			id, err := app.InsertRecipe(r.Context(), UserID(r.Context()), in.Title, in.Ingredients, in.Method)
			if err != nil {
				return site.Result[Recipe]{}, err
			}
			rec, err := app.GetRecipe(r.Context(), id)
			return site.Result[Recipe]{Output: rec, Message: "Recipe saved.", Redirect: "/recipe/view/" + strconv.Itoa(id)}, err
		})
	login := s.Page("/user/login", site.PageOptions{Description: "Log in"})
	site.Handle(login, site.Action{Name: "signIn", Description: "Log in with an email and a password", Expose: protocol.ExposePublic,
		NeedsCookies: true, LimitByAddress: true},
		func(r *site.Request, in SignInInput) (site.Done, error) {
			id, err := app.AuthenticateUser(r.Context(), in.Email, in.Password)
			if errors.Is(err, ErrInvalidCredentials) {
				return site.Done{}, site.Unavailable("Email or password is incorrect.")
			}
			if err == nil {
				err = app.Login(r.Context(), id) // scs writes the cookie as it does for the app
			}
			return site.Done{Message: "Logged in.", Redirect: "/recipe/create"}, err
		})
	logout := s.Page("/user/logout", site.PageOptions{Description: "Log out"})
	site.Handle(logout, site.Action{Name: "signOut", Description: "Log out of this session", Expose: protocol.ExposeSession},
		func(r *site.Request, in struct{}) (site.Done, error) {
			return site.Done{Message: "Logged out.", Redirect: "/"}, app.Logout(r.Context())
		})
}

// unreachable is site.Unreachable taught MariaDB's own words for a
// connection going away under a query: the server shutting down (1053)
// or the connection killed (1927), and any error of SQLSTATE class 08, a
// connection exception. The driver reports these as its MySQLError,
// which the core, importing no driver, cannot read. A call they stop
// answers 503 with Retry-After, for the agent to retry with its
// Idempotency-Key, not 500.
func unreachable(err error) bool {
	var my *mysql.MySQLError
	if errors.As(err, &my) {
		return my.Number == 1053 || my.Number == 1927 || string(my.SQLState[:2]) == "08"
	}
	return site.Unreachable(err)
}
