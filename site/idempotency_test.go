package site_test

import (
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/idempotency"
	"github.com/affordances-go/affordances/site/sitetest"
)

// idemShop counts how many times its action ran; slow makes it wait.
type idemShop struct {
	site    *site.Site
	mu      sync.Mutex
	ran     int
	slow    chan struct{}
	entered chan struct{}
}

type idemInput struct {
	N int `json:"n"`
}

func newIdemShop(t *testing.T) *idemShop {
	sh := &idemShop{}
	s := site.New(site.Options{Auth: approvalAuth, Logger: slog.New(slog.DiscardHandler), AuditLogger: slog.New(slog.DiscardHandler)})
	p := s.Page("/p", site.PageOptions{View: shopView})
	site.Handle(p, site.Action{Name: "order", Expose: protocol.ExposeSession}, func(r *site.Request, in idemInput) (site.Result[int], error) {
		if sh.slow != nil {
			sh.entered <- struct{}{}
			<-sh.slow
		}
		if in.N < 0 {
			return site.Result[int]{}, site.Unavailable("no")
		}
		sh.mu.Lock()
		defer sh.mu.Unlock()
		sh.ran++
		return site.Result[int]{Output: sh.ran, Message: "Ordered.", Redirect: "/p"}, nil
	})
	sh.site = s
	return sh
}

func TestIdempotency_OncePerCallerAndKey(t *testing.T) {
	sh := newIdemShop(t)
	c := sitetest.New(t, sh.site)
	call := func(key, body string, who ...string) *sitetest.Response {
		h := append([]string{"Authorization", "Bearer agent-a", "Idempotency-Key", key}, who...)
		return c.CallBody("/p", body, sitetest.Header(h...))
	}
	first := call("k1", `{"action":"order","input":{"n":1}}`)
	again := call("k1", `{"action":"order","input":{"n":1}}`)
	if first.Code != 200 || again.Code != 200 || sh.ran != 1 {
		t.Fatalf("a repeat ran again: %d %d, ran %d", first.Code, again.Code, sh.ran)
	}
	if again.Header().Get("Idempotent-Replayed") != "true" || first.Header().Get("Idempotent-Replayed") != "" {
		t.Errorf("replay marker: first %q, again %q", first.Header().Get("Idempotent-Replayed"), again.Header().Get("Idempotent-Replayed"))
	}
	if d1, d2 := first.Delta(), again.Delta(); d1.Message != d2.Message || d2.Output != d1.Output {
		t.Errorf("the replay differs: %+v vs %+v", d1, d2)
	}
	if res := call("k1", `{"action":"order","input":{"n":2}}`); res.Code != 409 || sh.ran != 1 || res.Header().Get("Retry-After") != "" {
		t.Errorf("the key for another input: %d (Retry-After %q), ran %d", res.Code, res.Header().Get("Retry-After"), sh.ran)
	}
	// Another caller's key of the same name is another key.
	if res := call("k1", `{"action":"order","input":{"n":1}}`, "Authorization", "Bearer agent-b"); res.Code != 200 || sh.ran != 2 {
		t.Errorf("another caller's key: %d, ran %d", res.Code, sh.ran)
	}
	// A failed call frees its key: the retry runs.
	if res := call("k2", `{"action":"order","input":{"n":-1}}`); res.Code != 409 {
		t.Fatalf("failing call: %d", res.Code)
	}
	if res := call("k2", `{"action":"order","input":{"n":-1}}`); res.Code != 409 || res.Header().Get("Idempotent-Replayed") != "" {
		t.Errorf("a failure was replayed: %d", res.Code)
	}
	for _, bad := range []string{"a b", string(make([]byte, 256)), "héllo"} {
		if res := call(bad, `{"action":"order","input":{"n":1}}`); res.Code != 400 {
			t.Errorf("key %q: %d", bad, res.Code)
		}
	}
	// An empty header is a key that breaks the rule, not a call without
	// a key: the client meant to protect the call, and nothing runs.
	ran := sh.ran
	empty := func(r *http.Request) { r.Header["Idempotency-Key"] = []string{""} }
	if res := c.CallBody("/p", `{"action":"order","input":{"n":1}}`, sitetest.Header("Authorization", "Bearer agent-a"), empty); res.Code != 400 || sh.ran != ran {
		t.Errorf("an empty Idempotency-Key: %d, ran %d more", res.Code, sh.ran-ran)
	}
	// A form post with a key: its repeat redirects as the first did.
	form := func() *sitetest.Response {
		return c.PostForm("/p", url.Values{"_action": {"order"}, "n": {"7"}}, sitetest.Header("Cookie", "session=alice", "Idempotency-Key", "f1"))
	}
	before := sh.ran
	if a, b := form(), form(); a.Code != 303 || b.Code != 303 || sh.ran != before+1 {
		t.Errorf("form with a key: %d %d, ran %d more", a.Code, b.Code, sh.ran-before)
	}
}

// A repeat while the first call still runs is refused, and runs nothing.
func TestIdempotency_ARepeatWhileTheFirstRuns(t *testing.T) {
	sh := newIdemShop(t)
	sh.slow, sh.entered = make(chan struct{}), make(chan struct{}, 1)
	c := sitetest.New(t, sh.site)
	body := `{"action":"order","input":{"n":1}}`
	h := sitetest.Header("Authorization", "Bearer agent-a", "Idempotency-Key", "slow")
	done := make(chan int)
	go func() { done <- c.CallBody("/p", body, h).Code }()
	<-sh.entered // the first call holds the key and runs
	// Retry-After says it is worth asking again: the key's answer comes.
	if res := c.CallBody("/p", body, h); res.Code != 409 || res.Header().Get("Retry-After") != "1" {
		t.Errorf("a repeat while the first runs: %d, Retry-After %q", res.Code, res.Header().Get("Retry-After"))
	}
	close(sh.slow)
	if code := <-done; code != 200 || sh.ran != 1 {
		t.Errorf("the first: %d, ran %d", code, sh.ran)
	}
}

// The memory store keeps at most MaxKeys keys, forgetting the oldest, and
// what it keeps answers as before: memory stays bounded whatever callers
// send, and a call's cost does not grow with the keys kept.
func TestMemoryIdempotency_Bounded(t *testing.T) {
	s := idempotency.NewMemory()
	s.MaxKeys = 100
	ctx := t.Context()
	for i := range 1000 {
		k := strconv.Itoa(i)
		if _, claimed, err := s.Claim(ctx, "caller", k, "fp", "c"+k, time.Minute, time.Hour); !claimed || err != nil {
			t.Fatalf("key %d: claimed %v, %v", i, claimed, err)
		}
		if err := s.Finish(ctx, "caller", k, "c"+k, []byte(`{"ok":true}`)); err != nil {
			t.Fatal(err)
		}
	}
	// The newest is still known: a repeat gets its delta.
	r, claimed, _ := s.Claim(ctx, "caller", "999", "fp", "again", time.Minute, time.Hour)
	if claimed || r.State != idempotency.Done || string(r.Delta) != `{"ok":true}` {
		t.Errorf("the newest key: claimed %v, %+v", claimed, r)
	}
	// The oldest was forgotten: it is claimed afresh.
	if _, claimed, _ := s.Claim(ctx, "caller", "0", "fp", "again", time.Minute, time.Hour); !claimed {
		t.Error("the oldest key is still kept past MaxKeys")
	}
	// Expired keys go first.
	s2 := idempotency.NewMemory()
	s2.Claim(ctx, "caller", "short", "fp", "c", time.Minute, time.Nanosecond)
	time.Sleep(time.Millisecond)
	if _, claimed, _ := s2.Claim(ctx, "caller", "short", "fp", "d", time.Minute, time.Hour); !claimed {
		t.Error("an expired key was not forgotten")
	}
}

// TestIdempotency_ReplayIsTheFirstAnswer checks that a replay answers the
// bytes the first call answered, not the stored delta decoded and
// encoded again: an output whose members are not in alphabetical order,
// and a changed entity, keep theirs.
func TestIdempotency_ReplayIsTheFirstAnswer(t *testing.T) {
	type line struct {
		Zeta  string `json:"zeta"`
		Alpha int    `json:"alpha"`
		Mid   []int  `json:"mid"`
	}
	cartKey := site.NewKey[line]("cart")
	s := site.New(site.Options{Auth: approvalAuth, Logger: slog.New(slog.DiscardHandler), AuditLogger: slog.New(slog.DiscardHandler)})
	n := 0
	p := s.Page("/p", site.PageOptions{Entities: []site.EntityLoader{site.Entity(cartKey, func(*site.Request) (line, error) {
		return line{Zeta: "z", Alpha: n, Mid: []int{n}}, nil
	})}})
	site.Handle(p, site.Action{Name: "add", Expose: protocol.ExposeSession, Effects: site.Effects(cartKey)},
		func(r *site.Request, in idemInput) (site.Result[line], error) {
			n++
			return site.Result[line]{Output: line{Zeta: "out", Alpha: n, Mid: []int{3, 1}}, Message: "Added."}, nil
		})
	c := sitetest.New(t, s)
	call := func() *sitetest.Response {
		return c.CallBody("/p", `{"action":"add","input":{"n":1}}`, sitetest.Header("Authorization", "Bearer agent-a", "Idempotency-Key", "same"))
	}
	first, again := call(), call()
	if first.Code != 200 || again.Code != 200 || n != 1 {
		t.Fatalf("codes %d %d, ran %d times", first.Code, again.Code, n)
	}
	if first.Body.String() != again.Body.String() {
		t.Errorf("the replay is not the first answer:\nfirst  %s\nreplay %s", first.Body, again.Body)
	}
	if again.Header().Get(protocol.ReplayedHeader) != "true" {
		t.Errorf("the replay is not marked")
	}
}
