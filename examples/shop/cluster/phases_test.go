package cluster_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/protocol"
)

// The phases of TestCluster that need no fault: the shared cache, one limit, metrics, writes and MCP through the proxy.

// sharedCache is the phase "1 shared cache serves each its own representation" of TestCluster.
func sharedCache(t *testing.T, c *cluster) {
	wrong, hits, mdHits := 0, 0, 0
	paths := []string{"/", "/products/heavyweight-tee", "/products/canvas-tote", "/cart"}
	for i := range 1000 {
		p := paths[i%len(paths)]
		switch i % 5 {
		case 0: // a browser
			_, ct, cache, _ := get(t, c.proxy+p, "text/html,application/xhtml+xml,*/*;q=0.8")
			if !strings.HasPrefix(ct, "text/html") {
				wrong++
				t.Errorf("a browser got %s for %s (cache %s)", ct, p, cache)
			}
			if cache == "HIT" {
				hits++
			}
		case 1: // an agent, by header
			_, ct, _, body := get(t, c.proxy+p, protocol.MediaType)
			if ct != protocol.MediaType || !strings.HasPrefix(body, `{"v":"0"`) {
				wrong++
				t.Errorf("an agent got %s for %s", ct, p)
			}
		case 2: // an agent, by ?affordances=1
			_, ct, _, _ := get(t, c.proxy+p+"?affordances=1", "*/*")
			if ct != protocol.MediaType {
				wrong++
				t.Errorf("an agent (alias) got %s for %s", ct, p)
			}
		case 3: // an agent that prefers Markdown
			_, ct, cache, body := get(t, c.proxy+p, "text/markdown, text/html;q=0.5")
			if !strings.HasPrefix(ct, "text/markdown") || !strings.HasPrefix(body, "# ") {
				wrong++
				t.Errorf("a Markdown agent got %s for %s (cache %s)", ct, p, cache)
			}
			if cache == "HIT" {
				mdHits++
			}
		case 4: // a client that names Markdown but prefers HTML
			_, ct, _, _ := get(t, c.proxy+p, "text/html, text/markdown;q=0.5")
			if !strings.HasPrefix(ct, "text/html") {
				wrong++
				t.Errorf("a client preferring HTML got %s for %s", ct, p)
			}
		}
	}
	figure("shared cache: 1000 requests (HTML, graph by header and by ?affordances=1, Markdown, HTML over Markdown), %d of the wrong kind, %d cache hits for browsers, %d for Markdown", wrong, hits, mdHits)
	if hits == 0 {
		t.Error("the cache never served a hit")
	}
}

// oneLimit is the phase "2 one limit across instances" of TestCluster.
func oneLimit(t *testing.T, c *cluster) {
	body := `{"action":"addToCart","input":{"sku":"HOOD-GRE-M"}}`
	faults := func() int64 {
		return c.instances[0].app.Site().LimiterFaults() + c.instances[1].app.Site().LimiterFaults()
	}
	allowed, retry := 0, ""
	// A decision Redis answers after its 100 ms timeout fails open; on
	// a loaded machine that can happen, and then the round says
	// nothing of the shared limit: try again with a fresh caller.
	for attempt := range 3 {
		tok := newBuyers(t, c, fmt.Sprintf("limit%d-", attempt), 1)[0]
		c.token = tok
		before := faults()
		allowed, retry = 0, ""
		for i := range 8 {
			in := c.instances[i%2]
			code, dcode, ra := call(t, in.url, tok, "/products/everyday-hoodie", body)
			switch {
			case code == 200:
				allowed++
			case code == 429 && dcode == "rate_limited":
				retry = ra
			default:
				t.Fatalf("%s: %d %s", in.name, code, dcode)
			}
		}
		if faults() == before {
			break
		}
	}
	figure("one limit: 8 calls over 2 instances, %d allowed (limit: a burst of %d), then 429 with Retry-After %s", allowed, limit.Burst, retry)
	if allowed != limit.Burst || retry == "" {
		t.Fatalf("allowed %d, Retry-After %q", allowed, retry)
	}
	s, _ := strconv.Atoi(retry)
	time.Sleep(time.Duration(s) * time.Second)
	if code, dcode, _ := call(t, c.instances[1].url, c.token, "/products/everyday-hoodie", body); code != 200 {
		t.Errorf("after waiting Retry-After: %d %s", code, dcode)
	}
}

// metricsAddUp is the phase "2b metrics add up across instances" of TestCluster.
func metricsAddUp(t *testing.T, c *cluster) {
	before := []float64{scrape(t, c.instances[0]), scrape(t, c.instances[1])}
	const calls = 40
	for range calls {
		// Through nginx, which spreads them over both instances.
		code, dcode, _ := call(t, c.proxy, c.token, "/cart", `{"action":"setQuantity","input":{"sku":"HOOD-GRE-M","qty":0}}`)
		if code >= 500 {
			t.Fatalf("a call through nginx: %d %s", code, dcode)
		}
	}
	a, b := scrape(t, c.instances[0])-before[0], scrape(t, c.instances[1])-before[1]
	figure("metrics: %d calls through nginx; /metrics of instance A counts %.0f, instance B %.0f, together %.0f", calls, a, b, a+b)
	if a+b != calls || a == 0 || b == 0 {
		t.Errorf("the instances count %.0f + %.0f calls, want %d in all, some on each", a, b, calls)
	}
}

// noLostWrites is the phase "3 no lost or doubled writes" of TestCluster.
func noLostWrites(t *testing.T, c *cluster) {
	ctx := context.Background()
	const sku, buyers = "TEE-WHI-S", 64
	store := c.instances[0].store
	before, _ := store.Stock(ctx, sku)
	tokens := make([]string, buyers)
	for i := range tokens {
		id, err := store.CreateUser(ctx, fmt.Sprintf("buyer%d@example.com", i), "Buyer", "a long password")
		if err != nil {
			t.Fatal(err)
		}
		store.SaveAddress(ctx, id, shop.Address{Name: "Buyer", Street: "1 Test Street", Postcode: "10115", City: "Berlin", Country: "DE"})
		tokens[i], _ = store.CreateToken(ctx, id, "race")
	}
	var mu sync.Mutex
	statuses := map[int]int{}
	sold := 0
	var wg sync.WaitGroup
	for i, tok := range tokens {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := c.instances[i%2]
			a, _, _ := call(t, in.url, tok, "/products/heavyweight-tee", `{"action":"addToCart","input":{"sku":"`+sku+`"}}`)
			o, _, _ := call(t, c.instances[(i+1)%2].url, tok, "/checkout", `{"action":"placeOrder","confirm":true}`)
			mu.Lock()
			defer mu.Unlock()
			statuses[a]++
			statuses[o]++
			if o == 200 {
				sold++
			}
		}()
	}
	wg.Wait()
	after, _ := store.Stock(ctx, sku)
	fivexx := 0
	for code, n := range statuses {
		if code >= 500 || code == 0 {
			fivexx += n
		}
	}
	figure("writes: %d buyers over 2 instances for %d in stock: %d orders, stock %d → %d, %d 5xx (statuses %v)", buyers, before, sold, before, after, fivexx, statuses)
	if sold != before-after || after < 0 || fivexx != 0 {
		t.Errorf("sold %d, stock %d → %d, %d 5xx", sold, before, after, fivexx)
	}
}

// mcpThroughTheProxy is the phase "8 an MCP host through the proxy" of TestCluster.
func mcpThroughTheProxy(t *testing.T, c *cluster) {
	// An MCP session lives in the instance that opened it: every
	// request of the host must reach that instance, whatever the
	// proxy's balancing does with other requests.
	hc := &http.Client{Transport: bearer{c.token}}
	ctx := context.Background()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "cluster host", Version: "0"}, nil).Connect(ctx,
		&sdk.StreamableClientTransport{Endpoint: c.proxy + "/mcp", HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	failed := 0
	for i := range 12 {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "readPage", Arguments: map[string]any{"page": "/products/heavyweight-tee"}})
		if err != nil || res.IsError {
			failed++
			if failed == 1 {
				t.Errorf("call %d through the proxy: %v %+v", i, err, res)
			}
		}
	}
	figure("an MCP host through nginx: %d of 12 tool calls failed", failed)
}
