// Command adopt runs the dials application with Affordances in front of
// it (package agents), or as it was before with -plain:
//
//	go run ./examples/adopt            # http://127.0.0.1:8082, sign in as ann@example.com / ann-password
//	go run ./examples/adopt -plain     # the application alone
//
// Its REST API takes the API key ann-key as a bearer token; so do agents.
package main

import (
	"crypto/rand"
	"flag"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/affordances-go/affordances/examples/adopt/agents"
	"github.com/affordances-go/affordances/examples/adopt/dials"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8082", "listen address")
	plain := flag.Bool("plain", false, "serve the application without Affordances")
	flag.Parse()
	app := dials.New(dials.NewStore(), []byte(rand.Text()))
	var h http.Handler = app.Handler()
	if !*plain {
		h = agents.Adopt(app)
	}
	srv := &http.Server{Addr: *addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	slog.Info("dials", "url", "http://"+*addr, "affordances", !*plain)
	if err := srv.ListenAndServe(); err != nil {
		slog.Error("dials", "err", err)
		os.Exit(1)
	}
}
