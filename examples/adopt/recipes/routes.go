package recipes

import (
	"net/http"

	"github.com/julienschmidt/httprouter"
	"github.com/justinas/alice"
)

// Routes is the application's handler: a chain for every request, one
// for pages with sessions and CSRF, one for pages that need a user.
func (app *App) Routes() http.Handler {
	router := httprouter.New()
	router.NotFound = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { app.clientError(w, http.StatusNotFound) })

	dynamic := alice.New(app.Sessions.LoadAndSave, noSurf, app.authenticate)
	router.Handler(http.MethodGet, "/", dynamic.ThenFunc(app.home))
	router.Handler(http.MethodGet, "/recipe/view/:id", dynamic.ThenFunc(app.recipeView))
	router.Handler(http.MethodGet, "/user/signup", dynamic.ThenFunc(app.signupForm))
	router.Handler(http.MethodPost, "/user/signup", dynamic.ThenFunc(app.signupPost))
	router.Handler(http.MethodGet, "/user/login", dynamic.ThenFunc(app.loginForm))
	router.Handler(http.MethodPost, "/user/login", dynamic.ThenFunc(app.loginPost))

	protected := dynamic.Append(app.requireAuthentication)
	router.Handler(http.MethodGet, "/recipe/create", protected.ThenFunc(app.recipeCreateForm))
	router.Handler(http.MethodPost, "/recipe/create", protected.ThenFunc(app.recipeCreatePost))
	router.Handler(http.MethodPost, "/user/logout", protected.ThenFunc(app.logoutPost))

	standard := alice.New(app.recoverPanic, app.logRequest, secureHeaders)
	return standard.Then(router)
}
