package presence_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/approval"
	"github.com/affordances-go/affordances/site/presence"
)

// Plug passkeys into a site, and into its approval page: people-only
// actions, the person's own orders and approvals then need the person's
// passkey, once they have one. The site serves the pages'
// script and the challenges its forms ask for.
func ExampleMount() {
	passkeys, err := presence.New(presence.Options{RPID: "shop.example", RPName: "Shop",
		Origins: []string{"https://shop.example"}})
	if err != nil {
		panic(err)
	}
	s := site.New(site.Options{
		Auth: site.AuthFunc(func(r *http.Request) (site.Caller, error) {
			return site.Caller{ID: "sess-1", Account: "ann", Mode: protocol.AuthCookie, SignedIn: true}, nil
		}),
		Logger: slog.New(slog.DiscardHandler),
	})
	presence.Mount(s, passkeys)
	approval.Mount(s, &approval.Options{Presence: passkeys, Logger: slog.New(slog.DiscardHandler)})

	res := httptest.NewRecorder()
	s.ServeHTTP(res, httptest.NewRequest("GET", "https://shop.example"+presence.ScriptPath, nil))
	fmt.Println(res.Code, res.Header().Get("Content-Type"), strings.Contains(res.Body.String(), "navigator.credentials"))
	// Output: 200 text/javascript; charset=utf-8 true
}
