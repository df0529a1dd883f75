package tokens_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/tokens"
)

// A site takes bearer tokens from the kit before its own sessions: the
// token's caller acts for its owner, within the token's scopes.
func ExampleKit_Caller() {
	kit := tokens.New(tokens.NewMemory(), tokens.Options{}) // tokens.NewSQL(db, tokens.PostgreSQL, "") in production
	s := site.New(site.Options{Auth: site.AuthFunc(func(r *http.Request) (site.Caller, error) {
		if c, ok, err := kit.Caller(r); ok {
			return c, err
		}
		return site.Caller{}, nil // the application's sessions would go here
	})})
	p := s.Page("/notes", site.PageOptions{})
	site.Handle(p, site.Action{Name: "addNote", Expose: protocol.ExposeSession}, func(r *site.Request, in struct{}) (site.Done, error) {
		return site.Done{Message: "Added for " + r.Caller.Account + "."}, nil
	})
	site.Handle(p, site.Action{Name: "clearNotes", Expose: protocol.ExposeSession}, func(r *site.Request, in struct{}) (site.Done, error) {
		return site.Done{Message: "Cleared."}, nil
	})

	// What the person's page does when they make a token for one action.
	secret, _, _ := kit.Issue(context.Background(), "user:42", "notes bot", tokens.Grant{Actions: []string{"addNote"}})

	call := func(action, token string) {
		r := httptest.NewRequest("POST", "/notes", strings.NewReader(`{"action":"`+action+`"}`))
		r.Header.Set("Content-Type", protocol.MediaType)
		r.Header.Set("Authorization", "Bearer "+token)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		fmt.Println(action, w.Code)
	}
	call("addNote", secret)
	call("clearNotes", secret)
	call("addNote", "afk_not-a-token")
	// Output:
	// addNote 200
	// clearNotes 403
	// addNote 401
}
