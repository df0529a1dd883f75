package recipes

import (
	"bytes"
	"errors"
	"html/template"
	"net/http"
	"net/mail"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/julienschmidt/httprouter"
	"github.com/justinas/nosurf"
)

// pageData is what every template gets.
type pageData struct {
	Recipe          Recipe
	Recipes         []Recipe
	Form            any
	Flash           string
	IsAuthenticated bool
	CSRFToken       string
	Head            template.HTML
}

// recipeForm is the form to write a recipe, with its errors.
type recipeForm struct {
	Title, Ingredients, Method string
	Errors                     map[string]string
}

// userForm is the sign-up and sign-in forms, with their errors.
type userForm struct {
	Name, Email, Password string
	Errors                map[string]string
}

func (app *App) data(r *http.Request) pageData {
	return pageData{
		Flash:           app.Sessions.PopString(r.Context(), "flash"),
		IsAuthenticated: UserID(r.Context()) != 0,
		CSRFToken:       nosurf.Token(r),
		Head:            app.head(r),
	}
}

// head is what goes in the page's <head>, if anything.
func (app *App) head(r *http.Request) template.HTML {
	if app.Head == nil {
		return ""
	}
	return app.Head(r)
}

// render writes a page: the status first, as net/http lets it, and the
// body, whose type net/http sniffs.
func (app *App) render(w http.ResponseWriter, r *http.Request, status int, page string, data pageData) {
	var buf bytes.Buffer
	if err := app.pages[page].ExecuteTemplate(&buf, "base", data); err != nil {
		app.serverError(w, r, err)
		return
	}
	w.WriteHeader(status)
	buf.WriteTo(w)
}

func (app *App) serverError(w http.ResponseWriter, r *http.Request, err error) {
	app.Logger.Error("server error", "err", err, "method", r.Method, "uri", r.URL.RequestURI())
	http.Error(w, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)
}

func (app *App) clientError(w http.ResponseWriter, status int) {
	http.Error(w, http.StatusText(status), status)
}

func (app *App) home(w http.ResponseWriter, r *http.Request) {
	rs, err := app.LatestRecipes(r.Context())
	if err != nil {
		app.serverError(w, r, err)
		return
	}
	data := app.data(r)
	data.Recipes = rs
	app.render(w, r, http.StatusOK, "home.html", data)
}

func (app *App) recipeView(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.Atoi(httprouter.ParamsFromContext(r.Context()).ByName("id"))
	if err != nil || id < 1 {
		app.clientError(w, http.StatusNotFound)
		return
	}
	rec, err := app.GetRecipe(r.Context(), id)
	if errors.Is(err, ErrNoRecord) {
		app.clientError(w, http.StatusNotFound)
		return
	} else if err != nil {
		app.serverError(w, r, err)
		return
	}
	data := app.data(r)
	data.Recipe = rec
	app.render(w, r, http.StatusOK, "view.html", data)
}

func (app *App) recipeCreateForm(w http.ResponseWriter, r *http.Request) {
	data := app.data(r)
	data.Form = recipeForm{}
	app.render(w, r, http.StatusOK, "create.html", data)
}

// CheckRecipe returns what is wrong with a recipe, by field.
func CheckRecipe(title, ingredients, method string) map[string]string {
	errs := map[string]string{}
	switch {
	case strings.TrimSpace(title) == "":
		errs["title"] = "This field cannot be blank"
	case utf8.RuneCountInString(title) > 100:
		errs["title"] = "This field cannot be more than 100 characters long"
	}
	if strings.TrimSpace(ingredients) == "" {
		errs["ingredients"] = "This field cannot be blank"
	}
	if strings.TrimSpace(method) == "" {
		errs["method"] = "This field cannot be blank"
	}
	return errs
}

func (app *App) recipeCreatePost(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		app.clientError(w, http.StatusBadRequest)
		return
	}
	form := recipeForm{Title: r.PostForm.Get("title"), Ingredients: r.PostForm.Get("ingredients"), Method: r.PostForm.Get("method")}
	if form.Errors = CheckRecipe(form.Title, form.Ingredients, form.Method); len(form.Errors) > 0 {
		data := app.data(r)
		data.Form = form
		app.render(w, r, http.StatusUnprocessableEntity, "create.html", data)
		return
	}
	id, err := app.InsertRecipe(r.Context(), UserID(r.Context()), form.Title, form.Ingredients, form.Method)
	if err != nil {
		app.serverError(w, r, err)
		return
	}
	app.Sessions.Put(r.Context(), "flash", "Recipe saved.")
	http.Redirect(w, r, "/recipe/view/"+strconv.Itoa(id), http.StatusSeeOther)
}

func (app *App) signupForm(w http.ResponseWriter, r *http.Request) {
	data := app.data(r)
	data.Form = userForm{}
	app.render(w, r, http.StatusOK, "signup.html", data)
}

func (app *App) signupPost(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		app.clientError(w, http.StatusBadRequest)
		return
	}
	form := userForm{Name: r.PostForm.Get("name"), Email: r.PostForm.Get("email"), Password: r.PostForm.Get("password"), Errors: map[string]string{}}
	if strings.TrimSpace(form.Name) == "" {
		form.Errors["name"] = "This field cannot be blank"
	}
	if _, err := mail.ParseAddress(form.Email); err != nil {
		form.Errors["email"] = "This field must be a valid email address"
	}
	if utf8.RuneCountInString(form.Password) < 8 {
		form.Errors["password"] = "This field must be at least 8 characters long"
	}
	if len(form.Errors) == 0 {
		err := app.InsertUser(r.Context(), form.Name, form.Email, form.Password)
		if errors.Is(err, ErrDuplicateEmail) {
			form.Errors["email"] = "Email address is already in use"
		} else if err != nil {
			app.serverError(w, r, err)
			return
		}
	}
	if len(form.Errors) > 0 {
		data := app.data(r)
		data.Form = form
		app.render(w, r, http.StatusUnprocessableEntity, "signup.html", data)
		return
	}
	app.Sessions.Put(r.Context(), "flash", "Your signup was successful. Please log in.")
	http.Redirect(w, r, "/user/login", http.StatusSeeOther)
}

func (app *App) loginForm(w http.ResponseWriter, r *http.Request) {
	data := app.data(r)
	data.Form = userForm{}
	app.render(w, r, http.StatusOK, "login.html", data)
}

func (app *App) loginPost(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		app.clientError(w, http.StatusBadRequest)
		return
	}
	form := userForm{Email: r.PostForm.Get("email"), Errors: map[string]string{}}
	id, err := app.AuthenticateUser(r.Context(), form.Email, r.PostForm.Get("password"))
	if errors.Is(err, ErrInvalidCredentials) {
		form.Errors["generic"] = "Email or password is incorrect"
		data := app.data(r)
		data.Form = form
		app.render(w, r, http.StatusUnprocessableEntity, "login.html", data)
		return
	} else if err != nil {
		app.serverError(w, r, err)
		return
	}
	if err := app.Login(r.Context(), id); err != nil {
		app.serverError(w, r, err)
		return
	}
	http.Redirect(w, r, "/recipe/create", http.StatusSeeOther)
}

func (app *App) logoutPost(w http.ResponseWriter, r *http.Request) {
	if err := app.Logout(r.Context()); err != nil {
		app.serverError(w, r, err)
		return
	}
	app.Sessions.Put(r.Context(), "flash", "You've been logged out successfully.")
	http.Redirect(w, r, "/", http.StatusSeeOther)
}
