package site_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/ratelimit"
	"github.com/affordances-go/affordances/site/sitetest"
)

// BenchmarkCall compares an agent's call through the whole pipeline with a
// hand-written handler that reads the body, validates it with the same
// JSON Schema library against the same schema, decodes it, does the same
// work and answers the same delta. The ratio is the pipeline's overhead:
//
//	go test ./site -run '^$' -bench 'Call$' -benchmem -count 6 | benchstat -col /impl -
func BenchmarkCall(b *testing.B) {
	type cart struct {
		Lines map[string]int `json:"lines"`
		Count int            `json:"count"`
	}
	var mu sync.Mutex
	lines := map[string]int{}
	snapshot := func() cart {
		mu.Lock()
		defer mu.Unlock()
		c := cart{Lines: map[string]int{}}
		for k, v := range lines {
			c.Lines[k] = v
			c.Count += v
		}
		return c
	}

	// The audit record is part of the pipeline's cost: format it, then
	// drop it.
	audit := slog.New(slog.NewJSONHandler(io.Discard, nil))
	s := site.New(site.Options{Limits: site.LimitOptions{Default: ratelimit.PerMinute(1<<30, 1<<30)}, AuditLogger: audit})
	p := s.Page("/p/{slug}", site.PageOptions{Load: func(r *site.Request) (*site.State, error) {
		return withEntities(&site.State{}, map[string]any{"product": map[string]any{"slug": r.PathValue("slug")}, "cart": snapshot()}), nil
	}})
	work := func(in addToCart) cart {
		mu.Lock()
		lines[in.SKU] = in.Qty // idempotent, so every iteration does the same work
		mu.Unlock()
		return snapshot()
	}
	site.Handle(p, site.Action{Name: "addToCart", Description: "Add", Expose: protocol.ExposePublic, Effects: site.Effects(site.NewKey[any]("cart"))},
		func(r *site.Request, in addToCart) (site.Result[cart], error) {
			return site.Result[cart]{Output: work(in), Message: "Added."}, nil
		})

	// The baseline: the same schema, compiled once, and the same work.
	g := sitetest.New(b, s).Graph("/p/tee")
	c := jsonschema.NewCompiler()
	doc, _ := jsonschema.UnmarshalJSON(bytes.NewReader(g.Actions[0].Input))
	c.AddResource("mem:///in.json", doc)
	sch, err := c.Compile("mem:///in.json")
	if err != nil {
		b.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /p/{slug}", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
		if err != nil {
			http.Error(w, "too big", http.StatusRequestEntityTooLarge)
			return
		}
		var env struct {
			Action string          `json:"action"`
			Input  json.RawMessage `json:"input"`
		}
		if err := json.Unmarshal(body, &env); err != nil || env.Action != "addToCart" {
			http.Error(w, "bad", 400)
			return
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(env.Input))
		if err != nil || sch.Validate(v) != nil {
			http.Error(w, "invalid", 400)
			return
		}
		var in addToCart
		if err := json.Unmarshal(env.Input, &in); err != nil {
			http.Error(w, "invalid", 400)
			return
		}
		out := work(in)
		resp, _ := json.Marshal(protocol.Delta{OK: true, Changed: map[string]any{"cart": out}, Output: out, Message: "Added."})
		h := w.Header()
		h.Set("Content-Type", protocol.MediaType)
		h.Set("Cache-Control", "private, no-store")
		h.Set("Content-Length", strconv.Itoa(len(resp)))
		w.Write(resp)
	})

	body := `{"action":"addToCart","input":{"sku":"TEE-BLK-M","qty":2}}`
	want := sitetest.New(b, mux).CallBody("/p/tee", body).Body.String()
	if got := sitetest.New(b, s).CallBody("/p/tee", body).Body.String(); got != want {
		b.Fatalf("the baseline answers differently:\n%s\n%s", got, want)
	}
	// impl=site+key: the same call with a new Idempotency-Key each time,
	// in the default (memory) key store: the library's part of a key's
	// cost, without a database's.
	n := 0
	for _, c := range []struct {
		name  string
		h     http.Handler
		keyed bool
	}{{"impl=nethttp", mux, false}, {"impl=site", s, false}, {"impl=site+key", s, true}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequest("POST", "/p/tee", strings.NewReader(body))
				r.Header.Set("Content-Type", protocol.MediaType)
				if c.keyed {
					n++
					r.Header.Set(protocol.IdempotencyHeader, "k"+strconv.Itoa(n))
				}
				w := httptest.NewRecorder()
				c.h.ServeHTTP(w, r)
				if w.Code != 200 {
					b.Fatal(w.Code, w.Body)
				}
			}
		})
	}
}
