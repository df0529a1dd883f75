// Package ginblog is a small gin blog as its authors wrote it before
// Affordances (gin with gin-contrib/sessions on a cookie store, gorm on
// SQLite, LoadHTMLGlob templates, admin forms with a CSRF check of the
// gin-csrf kind), and its adoption in affordances.go, the only file that
// knows the library. app.go changed in two lines: the router takes the
// site's middleware, and the layout's data its link element.
package ginblog

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"html/template"
	"net/http"
	"strconv"

	"github.com/gin-contrib/sessions"
	"github.com/gin-contrib/sessions/cookie"
	"github.com/gin-gonic/gin"
	"github.com/glebarez/sqlite"
	"gorm.io/gorm"
)

// User is an author; admins edit and publish posts.
type User struct {
	ID       uint
	Email    string `gorm:"uniqueIndex"`
	Password string // hex SHA-256, as this small app keeps it
	Admin    bool
}

// Post is a blog post.
type Post struct {
	ID        uint   `json:"id"`
	Title     string `json:"title"`
	Body      string `json:"body"`
	Tag       string `json:"tag"`
	Published bool   `json:"published"`
}

// App is the blog: its database and session store.
type App struct {
	DB       *gorm.DB
	Sessions sessions.Store
	// Head adds to the layout's <head> (empty before Affordances).
	Head func(c *gin.Context) template.HTML
}

// Open opens the blog's database at dsn and seeds an admin
// (admin@example.com / admin), a reader and a first post.
func Open(dsn string, sessionKey []byte) (*App, error) {
	db, err := gorm.Open(sqlite.Open(dsn), &gorm.Config{})
	if err != nil {
		return nil, err
	}
	if err := db.AutoMigrate(&User{}, &Post{}); err != nil {
		return nil, err
	}
	db.FirstOrCreate(&User{}, User{Email: "admin@example.com", Password: hash("admin"), Admin: true})
	db.FirstOrCreate(&User{}, User{Email: "reader@example.com", Password: hash("reader")})
	db.FirstOrCreate(&Post{}, Post{Title: "Hello", Body: "The first post.", Tag: "news", Published: true})
	return &App{DB: db, Sessions: cookie.NewStore(sessionKey), Head: func(*gin.Context) template.HTML { return "" }}, nil
}

func hash(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }

// Router is the blog's gin engine. mw runs after the session middleware
// and before the routes (Affordances' middleware goes there).
func (app *App) Router(mw ...gin.HandlerFunc) *gin.Engine {
	r := gin.New()
	r.Use(gin.Logger(), gin.Recovery(), sessions.Sessions("blog", app.Sessions))
	r.Use(mw...)
	r.LoadHTMLGlob(templateGlob)
	r.GET("/", app.home)
	r.GET("/posts/:id", app.showPost)
	r.GET("/tag/:tag", app.tagPage)
	r.GET("/login", CSRF, func(c *gin.Context) { app.render(c, "login.tmpl", gin.H{}) })
	r.POST("/login", CSRF, app.login)
	admin := r.Group("/admin", app.requireAdmin, CSRF)
	admin.GET("/post/:id/edit", app.editPage)
	admin.POST("/post/:id/edit", app.savePost)
	return r
}

// templateGlob is where the templates are, relative to the package.
var templateGlob = "templates/*.tmpl"

// render renders a template inside the layout, with what every page shows.
func (app *App) render(c *gin.Context, name string, data gin.H) {
	data["Head"] = app.Head(c)
	data["CSRF"] = c.GetString(csrfKey)
	data["Page"] = name
	c.HTML(http.StatusOK, name, data)
}

// CurrentUser is the signed-in user of the session, or nil.
func (app *App) CurrentUser(c *gin.Context) *User {
	id, ok := sessions.Default(c).Get("user_id").(uint)
	if !ok {
		return nil
	}
	var u User
	if app.DB.First(&u, id).Error != nil {
		return nil
	}
	return &u
}

func (app *App) home(c *gin.Context) {
	var posts []Post
	app.DB.Where("published = ?", true).Order("id desc").Find(&posts)
	app.render(c, "home.tmpl", gin.H{"Posts": posts})
}

func (app *App) tagPage(c *gin.Context) {
	var posts []Post
	app.DB.Where("published = ? AND tag = ?", true, c.Param("tag")).Find(&posts)
	app.render(c, "home.tmpl", gin.H{"Posts": posts, "Tag": c.Param("tag")})
}

// FindPost is a post the user may see: a published one, or any for an admin.
func (app *App) FindPost(idText string, u *User) (*Post, bool) {
	id, err := strconv.ParseUint(idText, 10, 64)
	var p Post
	if err != nil || app.DB.First(&p, id).Error != nil || (!p.Published && (u == nil || !u.Admin)) {
		return nil, false
	}
	return &p, true
}

func (app *App) showPost(c *gin.Context) {
	p, ok := app.FindPost(c.Param("id"), app.CurrentUser(c))
	if !ok {
		c.String(http.StatusNotFound, "no such post")
		return
	}
	app.render(c, "post.tmpl", gin.H{"Post": p})
}

// SignIn checks an email and password and returns the user.
func (app *App) SignIn(email, password string) (*User, bool) {
	var u User
	if app.DB.Where("email = ?", email).First(&u).Error != nil || subtle.ConstantTimeCompare([]byte(u.Password), []byte(hash(password))) != 1 {
		return nil, false
	}
	return &u, true
}

func (app *App) login(c *gin.Context) {
	u, ok := app.SignIn(c.PostForm("email"), c.PostForm("password"))
	if !ok {
		app.render(c, "login.tmpl", gin.H{"Error": "Email or password is incorrect."})
		return
	}
	s := sessions.Default(c)
	s.Set("user_id", u.ID)
	s.Save()
	c.Redirect(http.StatusSeeOther, "/")
}

func (app *App) requireAdmin(c *gin.Context) {
	if u := app.CurrentUser(c); u == nil || !u.Admin {
		c.AbortWithStatus(http.StatusNotFound)
	}
}

func (app *App) editPage(c *gin.Context) {
	p, ok := app.FindPost(c.Param("id"), app.CurrentUser(c))
	if !ok {
		c.AbortWithStatus(http.StatusNotFound)
		return
	}
	app.render(c, "edit.tmpl", gin.H{"Post": p})
}

// SavePost saves a post's title, body and tag, published or not.
func (app *App) SavePost(p *Post) error {
	return app.DB.Model(p).Select("title", "body", "tag", "published").Updates(p).Error
}

func (app *App) savePost(c *gin.Context) {
	p, ok := app.FindPost(c.Param("id"), app.CurrentUser(c))
	if !ok {
		c.AbortWithStatus(http.StatusNotFound)
		return
	}
	p.Title, p.Body, p.Tag, p.Published = c.PostForm("title"), c.PostForm("body"), c.PostForm("tag"), c.PostForm("published") == "on"
	if err := app.SavePost(p); err != nil {
		c.AbortWithStatus(http.StatusInternalServerError)
		return
	}
	c.Redirect(http.StatusSeeOther, "/posts/"+strconv.Itoa(int(p.ID)))
}

// csrfKey is where CSRF puts the session's token in the gin.Context.
const csrfKey = "csrf"

// CSRF is the blog's CSRF check, of the gin-csrf kind: a token kept in the
// session, given to templates, required in the _csrf field of every POST.
func CSRF(c *gin.Context) {
	s := sessions.Default(c)
	tok, _ := s.Get("csrf").(string)
	if tok == "" {
		b := make([]byte, 24)
		rand.Read(b)
		tok = base64.RawURLEncoding.EncodeToString(b)
		s.Set("csrf", tok)
		s.Save()
	}
	c.Set(csrfKey, tok)
	if c.Request.Method == http.MethodPost && subtle.ConstantTimeCompare([]byte(c.PostForm("_csrf")), []byte(tok)) != 1 {
		c.AbortWithStatus(http.StatusForbidden)
	}
}
