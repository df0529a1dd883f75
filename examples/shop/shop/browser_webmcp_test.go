package shop_test

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
)

// webmcpBrowser is a headless Chromium with WebMCP turned on: WebMCP
// for the page's side (registerTool, declarative forms), and WebMCPTesting
// for an agent's side on a Chromium that has only the testing API for it
// (see agentSide).
func webmcpBrowser(t *testing.T, timeout time.Duration) context.Context {
	return browser(t, timeout, chromedp.Flag("enable-features", "WebMCP,WebMCPTesting"))
}

// agentSide defines agent, how a test lists and runs the page's tools as
// an agent's host does, on either API Chromium has shipped for it:
// document.modelContext's getTools and executeTool(tool, object)
// (Chromium 156), or before it navigator.modelContextTesting's listTools,
// whose schemas are JSON text and which lists no annotations, and
// executeTool(name, JSON text) (Chromium 148). Every evaluation that
// reaches the tools starts with it; the page's side is the library's
// script, which detects its own API.
const agentSide = `const agent = (() => {
	const mc = document.modelContext, testing = navigator.modelContextTesting;
	if (mc && mc.getTools) {
		return {tools: async () => mc.getTools(), run: async (tool, input) => mc.executeTool(tool, input)};
	}
	if (!testing) {
		throw new Error("this Chromium offers an agent no WebMCP (no getTools, no modelContextTesting)");
	}
	return {
		tools: async () => (await testing.listTools()).map(x => ({...x, inputSchema: x.inputSchema ? JSON.parse(x.inputSchema) : undefined})),
		run: async (tool, input) => testing.executeTool(tool.name, JSON.stringify(input)),
	};
})();
`

// pageTool is a tool as the browser lists it.
type pageTool struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
}

// toolsOf opens path and returns the tools its page registered, once the
// library's script has registered its own, with the graph's actions
// available to the same session and their input schemas.
func toolsOf(t *testing.T, ctx context.Context, url string) (tools []pageTool, available map[string]json.RawMessage) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS(`html[data-webmcp-tools]`))); err != nil {
		t.Fatalf("opening %s: %v", url, err)
	}
	list, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(async () => {`+agentSide+`
		const tools = await agent.tools();
		return JSON.stringify(tools.map(x => ({name: x.name, schema: typeof x.inputSchema === "string" ? JSON.parse(x.inputSchema) : x.inputSchema})));
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: getTools: %v", url, err)
	}
	if err := json.Unmarshal([]byte(list), &tools); err != nil {
		t.Fatal(err)
	}
	graph, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(async () => {
		const res = await fetch(location.pathname + location.search, {headers: {Accept: "application/vnd.affordances+json"}});
		const g = await res.json();
		return JSON.stringify(g.actions.filter(a => a.available).map(a => ({name: a.name, schema: a.input})));
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: the graph: %v", url, err)
	}
	var acts []pageTool
	json.Unmarshal([]byte(graph), &acts)
	available = map[string]json.RawMessage{}
	for _, a := range acts {
		available[a.Name] = a.Schema
	}
	return tools, available
}

// schemaShape is what a tool's schema and the action's must agree on:
// the property names and the required ones.
func schemaShape(raw json.RawMessage) string {
	var s struct {
		Properties map[string]any `json:"properties"`
		Required   []string       `json:"required"`
	}
	json.Unmarshal(raw, &s)
	var props []string
	for k := range s.Properties {
		// A form's address.city is the field city of the input's address.
		k, _, _ = strings.Cut(k, ".")
		if !slices.Contains(props, k) {
			props = append(props, k)
		}
	}
	sort.Strings(props)
	sort.Strings(s.Required)
	return strings.Join(props, ",") + " required " + strings.Join(s.Required, ",")
}

func TestBrowser_WebMCPToolsAreThePagesAvailableActions(t *testing.T) {
	ctx := webmcpBrowser(t, 4*time.Minute)
	s := shoptest.StartWith(t, shop.Options{})
	demo, _ := s.Store.UserByEmail(context.Background(), shop.DemoEmail)

	// Signed out, then signed in with the page's own form, through its tool.
	check := func(path string) map[string]bool {
		tools, available := toolsOf(t, ctx, s.URL+path)
		names := map[string]bool{}
		for _, tl := range tools {
			if names[tl.Name] {
				t.Errorf("%s: the tool %s is registered twice", path, tl.Name)
			}
			names[tl.Name] = true
			if tl.Name == "readPage" || tl.Name == "searchProducts" {
				continue // every page reads itself (checked below); the header's search form
			}
			want, ok := available[tl.Name]
			if !ok {
				t.Errorf("%s: the tool %s is no available action of the page", path, tl.Name)
				continue
			}
			if schemaShape(tl.Schema) != schemaShape(want) {
				t.Errorf("%s: %s's schema %s, the action's %s", path, tl.Name, tl.Schema, want)
			}
		}
		for name := range available {
			if !names[name] {
				t.Errorf("%s: the available action %s has no tool", path, name)
			}
		}
		if !names["readPage"] {
			t.Errorf("%s: no readPage tool", path)
		}
		return names
	}
	// readPage is the page as Markdown, a fraction of its HTML; a call's
	// result is the delta's Markdown: what happened and what changed.
	if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+"/products/heavyweight-tee"), chromedp.WaitReady(chromedp.CSS(`html[data-webmcp-tools]`))); err != nil {
		t.Fatal(err)
	}
	read, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(async () => {`+agentSide+`
		const tools = await agent.tools();
		const page = await agent.run(tools.find(x => x.name === "readPage"), {});
		const search = await agent.run(tools.find(x => x.name === "searchProducts"), {q: "hoodie"});
		return JSON.stringify({page: JSON.stringify(page), search: JSON.stringify(search), html: document.documentElement.outerHTML.length});
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("readPage and searchProducts through their tools: %v", err)
	}
	var got struct {
		Page, Search, Add string
		HTML              int
	}
	json.Unmarshal([]byte(read), &got)
	got.Add = toolThenPress(t, ctx, "addToCart", `{sku: "TEE-BLK-M", qty: 1}`, `form.buy button[type=submit]`)
	// The result is the Markdown itself, not an object around it.
	if !strings.HasPrefix(got.Page, `"# `) || !strings.Contains(got.Page, "Heavyweight Tee") || !strings.Contains(got.Page, "addToCart") || len(got.Page) > got.HTML/2 {
		t.Errorf("readPage (%d bytes, HTML %d): %s", len(got.Page), got.HTML, got.Page)
	}
	// The agent has each action as a tool, with its input: the page's
	// Markdown leaves the inputs out, and how to POST them.
	if strings.Contains(got.Page, "Input:") || strings.Contains(got.Page, "POST") || !strings.Contains(got.Page, "one of this page's tools") {
		t.Errorf("readPage is not the Markdown for a reader whose actions are tools: %s", got.Page)
	}
	if !strings.Contains(got.Search, "Everyday Hoodie") || strings.Contains(got.Search, "Heavyweight Tee") {
		t.Errorf("searchProducts (the header's GET form) did not answer the matches as Markdown: %s", got.Search)
	}
	if !strings.Contains(got.Add, "Done: ") || !strings.Contains(got.Add, "## Changed") || strings.Contains(got.Add, `\"ok\":true`) {
		t.Errorf("addToCart's result is not the delta's Markdown: %s", got.Add)
	}
	t.Logf("webmcp: readPage %d bytes against %d of HTML; addToCart answered %s", len(got.Page), got.HTML, got.Add)
	removeAll := func() {
		chromedp.Run(ctx, chromedp.Evaluate[any](`fetch("/cart", {method: "POST", headers: {"Content-Type": "application/vnd.affordances+json"}, body: JSON.stringify({action: "removeFromCart", input: {sku: "TEE-BLK-M"}})})`, chromedp.EvalAwaitPromise))
	}
	removeAll()
	paths := []string{"/", "/products/heavyweight-tee", "/cart", "/login", "/signup"}
	for _, p := range paths {
		check(p)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+"/login"), chromedp.WaitReady(chromedp.CSS(`html[data-webmcp-tools]`))); err != nil {
		t.Fatal(err)
	}
	toolThenPress(t, ctx, "signIn", `{email: "`+shop.DemoEmail+`", password: "`+shop.DemoPassword+`"}`, `form[toolname=signIn] button[type=submit]`)
	if h := waitText(t, ctx, "h1", "Your account"); h != "Your account" {
		t.Fatalf("after signing in through WebMCP: %q", h)
	}
	for _, p := range append(paths, "/account", "/orders", "/checkout") {
		check(p)
	}

	// addToCart through its tool changes the cart as the same call by POST.
	cartQty := func() int {
		c, err := s.Store.Cart(context.Background(), shop.CartOwner{UserID: demo})
		if err != nil {
			t.Fatal(err)
		}
		return c.Count
	}
	before := cartQty()
	if names := check("/products/heavyweight-tee"); !names["addToCart"] {
		t.Fatal("no addToCart tool on the product page")
	}
	out := toolThenPress(t, ctx, "addToCart", `{sku: "TEE-BLK-M", qty: 2}`, `form.buy button[type=submit]`)
	if got := cartQty(); got != before+2 {
		t.Errorf("cart %d after adding 2 to %d through WebMCP (result %s)", got, before, out)
	}

	// placeOrder, a confirm action, never runs through WebMCP.
	if names := check("/checkout"); !names["placeOrder"] {
		t.Fatal("no placeOrder tool on the checkout page with a full cart")
	}
	orders := func() int {
		o, err := s.Store.Orders(context.Background(), demo)
		if err != nil {
			t.Fatal(err)
		}
		return len(o)
	}
	// The person's press is what places it: the tool fills in the
	// form, nothing is sent until then, and the press sends the page's own
	// form (the script makes no call of its own that confirms).
	ordersBefore := orders()
	out = toolThenPress(t, ctx, "placeOrder", `{}`, `form[toolname=placeOrder] button[type=submit]`)
	for i := 0; i < 100 && orders() == ordersBefore; i++ {
		time.Sleep(100 * time.Millisecond) // the page's form is on its way
	}
	t.Logf("webmcp: placeOrder's tool, then the person's press, answered %s", out)
	// The agent hears what the press did, not a failure: the presence
	// script holds the submission back for the person's passkey, and
	// answers the tool for it.
	if strings.HasPrefix(out, "error:") {
		t.Errorf("placeOrder's tool answered the agent with an error although the person's press placed the order: %s", out)
	}
	if n := orders() - ordersBefore; n != 1 {
		html, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + " " + document.querySelector("main").innerText`))
		t.Fatalf("placeOrder through its form's tool and the person's press: %d orders placed (result %s; page %s)", n, out, html)
	}

	// After a call, the page shows the new state: emptying the cart
	// through removeFromCart reloads the cart, whose forms and tools go.
	chromedp.Run(ctx, chromedp.Evaluate[any](`fetch("/products/heavyweight-tee", {method: "POST", headers: {"Content-Type": "application/vnd.affordances+json"}, body: JSON.stringify({action: "addToCart", input: {sku: "TEE-BLK-M"}})})`, chromedp.EvalAwaitPromise))
	names := check("/cart")
	if !names["removeFromCart"] || !names["setQuantity"] {
		t.Fatalf("the cart's tools with a line in it: %v", names)
	}
	out = toolThenPress(t, ctx, "removeFromCart", `{sku: "TEE-BLK-M"}`, `form[toolname=removeFromCart] button[type=submit]`)
	if got := cartQty(); got != 0 {
		t.Errorf("after emptying the cart through its tool: %d in the cart (result %s)", got, out)
	}
	// In place, without a navigation: the new state, and its tools.
	inPlace, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(async () => {`+agentSide+`
		return document.querySelector("main").innerText.includes("Your cart is empty") + " " +
			(await agent.tools()).map(x => x.name).sort().join(" ");
	})()`, chromedp.EvalAwaitPromise))
	if err != nil || !strings.HasPrefix(inPlace, "true ") || strings.Contains(inPlace, "removeFromCart") || strings.Contains(inPlace, "setQuantity") {
		t.Errorf("the cart in place after its last line went: %q %v", inPlace, err)
	}
	if left := check("/cart"); left["removeFromCart"] || left["setQuantity"] {
		t.Errorf("the empty cart's tools: %v", left)
	}
}

// toolThenPress calls the page's tool name with input (a JavaScript
// object) as an agent does, when a form declares the tool of an action
// that changes something: the browser fills the form and sends nothing
// until the person presses its button (no toolautosubmit). It checks
// that nothing was sent a second later, presses button, and returns the
// tool's result, which the library's script answers with the delta's
// Markdown (null for a confirm action's form: the press sends the page's
// own form, and the tool's answer is the page it loads).
func toolThenPress(t *testing.T, ctx context.Context, name, input, button string) string {
	t.Helper()
	// The result is kept in the tab's sessionStorage: the page may load
	// another (a form that leads on) or itself again (the new state).
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](`(() => {
		document.body.__before = true;
		sessionStorage.removeItem("toolResult");
		(async () => {`+agentSide+`
			const t = (await agent.tools()).find(x => x.name === "`+name+`");
			let r;
			try { r = JSON.stringify(await agent.run(t, `+input+`)); }
			catch (e) { r = "error: " + e; }
			sessionStorage.setItem("toolResult", r);
		})();
		return 1;
	})()`)); err != nil {
		t.Fatalf("%s through its tool: %v", name, err)
	}
	result := func() string {
		r, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`sessionStorage.getItem("toolResult") || ""`))
		return r
	}
	time.Sleep(time.Second)
	if result() != "" {
		t.Fatalf("%s's tool answered before the person pressed the button: it submitted by itself", name)
	}
	if err := chromedp.Do(ctx, chromedp.Click(button)); err != nil {
		t.Fatalf("pressing %s: %v", button, err)
	}
	// Every press that succeeds shows a new page: the next one, or this
	// one's new state in place of the old. The answer is in once it is.
	res := ""
	for range 100 {
		if res == "" {
			res = result()
		}
		if loaded, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.body.__before === undefined && document.readyState === "complete"`)); loaded && res != "" {
			return res
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s's tool did not answer, or no page loaded, after the person pressed the button (result %q)", name, res)
	return ""
}
