package ginblog

// The whole adoption: pages as graphs, forms as actions, tokens and MCP, inside gin.

import (
	"context"
	"net/http"
	"strconv"

	"github.com/gin-contrib/sessions"
	"github.com/gin-gonic/gin"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/ginsite"
	"github.com/affordances-go/affordances/site/mcp"
	"github.com/affordances-go/affordances/site/tokens"
)

var postsKey, postKey = site.NewKey[[]Post]("posts"), site.NewKey[*Post]("post")

// PostInput is a post as an admin's agent writes it.
type PostInput struct {
	Title     string `json:"title" minLength:"1" maxLength:"200"`
	Body      string `json:"body" maxLength:"20000"`
	Tag       string `json:"tag" maxLength:"40" pattern:"^[a-z0-9-]*$"`
	Published bool   `json:"published"`
}

// SignInInput is the sign-in form's input.
type SignInInput struct {
	Email    string `json:"email" format:"email" maxLength:"255"`
	Password string `json:"password" minLength:"1" maxLength:"200"`
}

// WithAgents returns the blog's engine with Affordances inside, and the token kit.
func (app *App) WithAgents(ctx context.Context) (*gin.Engine, *tokens.Kit, error) {
	db, err := app.DB.DB()
	if err == nil {
		err = tokens.NewSQL(db, tokens.SQLite, "").Migrate(ctx)
	}
	if err != nil {
		return nil, nil, err
	}
	kit := tokens.New(tokens.NewSQL(db, tokens.SQLite, ""), tokens.Options{})
	s := site.New(site.Options{
		Name:      "Gin blog",
		AuthModes: []protocol.AuthMode{protocol.AuthCookie, protocol.AuthBearer},
		Auth: site.AuthFunc(func(r *http.Request) (site.Caller, error) {
			if c, ok, err := kit.Caller(r); ok {
				return c, err
			}
			if u := app.CurrentUser(ginsite.Context(r)); u != nil { // the blog's gin-contrib session
				id := strconv.FormatUint(uint64(u.ID), 10)
				return site.Caller{ID: "user:" + id, Account: id, Mode: protocol.AuthCookie, SignedIn: true, User: u}, nil
			}
			return site.Caller{}, nil
		}),
		// The blog's CSRF check guards the person's forms of the library.
		PersonMiddleware: ginsite.Person(CSRF),
		FormFields: func(r *http.Request) map[string]string {
			return map[string]string{"_csrf": ginsite.Context(r).GetString(csrfKey)}
		},
	})
	app.agentPages(s)
	kit.Mount(s, "/account/tokens", tokens.MountOptions{})
	mcp.Mount(s, "/mcp", nil)
	app.Head = ginsite.Link // the link element only on routes with a page
	return app.Router(ginsite.Middleware(s)), kit, nil
}

// user is the caller's user: the account read back into the blog's id type, not given to gorm as a string.
func (app *App) user(r *site.Request) *User {
	if u, ok := r.Caller.User.(*User); ok {
		return u
	}
	var u User
	if id, err := strconv.ParseUint(r.Caller.Account, 10, 64); err != nil || app.DB.First(&u, uint(id)).Error != nil {
		return nil
	}
	return &u
}

// adminOnly is the admin pages' existence check: they exist for admins.
func (app *App) adminOnly(r *site.Request) error {
	if u := app.user(r); u == nil || !u.Admin {
		return site.ErrNotFound
	}
	return nil
}

func (app *App) agentPages(s *site.Site) {
	admin := func(r *site.Request) bool { return app.adminOnly(r) == nil } // admin actions are hidden from others
	s.Page("/", site.PageOptions{Description: "The latest posts", Entities: []site.EntityLoader{
		site.Entity(postsKey, func(r *site.Request) ([]Post, error) {
			var posts []Post
			return posts, app.DB.Where("published = ?", true).Order("id desc").Find(&posts).Error
		})}})
	findPost := func(r *site.Request) (*Post, error) {
		if p, ok := app.FindPost(r.PathValue("id"), app.user(r)); ok {
			return p, nil
		}
		return nil, site.ErrNotFound
	}
	s.Page("/posts/{id}", site.PageOptions{Description: "One post",
		Entities: []site.EntityLoader{site.Entity(postKey, findPost)}})
	// The edit page exists for an admin and a post: before any action runs.
	edit := s.Page("/admin/post/{id}/edit", site.PageOptions{Description: "Edit a post",
		Exists: func(r *site.Request) error {
			if err := app.adminOnly(r); err != nil {
				return err
			}
			_, err := findPost(r)
			return err
		},
		Entities: []site.EntityLoader{site.Entity(postKey, findPost)}})
	site.Handle(edit, site.Action{Name: "updatePost", Description: "Save the post's title, body, tag and whether it is published",
		Expose: protocol.ExposeSession, Visible: admin, Effects: site.Effects(postKey)},
		func(r *site.Request, in PostInput) (site.Done, error) {
			p, err := findPost(r)
			if err != nil {
				return site.Done{}, err
			}
			p.Title, p.Body, p.Tag, p.Published = in.Title, in.Body, in.Tag, in.Published
			return site.Done{Message: "Post saved."}, app.SavePost(p)
		})
	create := s.Page("/admin/posts", site.PageOptions{Description: "Write a post", Exists: app.adminOnly})
	site.Handle(create, site.Action{Name: "createPost", Description: "Write a new post", Expose: protocol.ExposeSession, Visible: admin},
		func(r *site.Request, in PostInput) (site.Result[Post], error) {
			p := Post{Title: in.Title, Body: in.Body, Tag: in.Tag, Published: in.Published}
			err := app.DB.Create(&p).Error
			return site.Result[Post]{Output: p, Message: "Post created.", Redirect: "/admin/post/" + strconv.Itoa(int(p.ID)) + "/edit"}, err
		})
	login := s.Page("/login", site.PageOptions{Description: "Sign in"})
	site.Handle(login, site.Action{Name: "signIn", Description: "Sign in with an email and a password",
		Expose: protocol.ExposePublic, NeedsCookies: true, LimitByAddress: true},
		func(r *site.Request, in SignInInput) (site.Done, error) {
			u, ok := app.SignIn(in.Email, in.Password)
			if !ok {
				return site.Done{}, site.Unavailable("Email or password is incorrect.")
			}
			sess := sessions.Default(ginsite.Context(r.Request))
			sess.Set("user_id", u.ID)
			return site.Done{Message: "Signed in.", Redirect: "/"}, sess.Save()
		})
}
