package shop_test

import (
	"encoding/json"
	"html/template"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/webmcp"
)

// stampOut is the output of the desk's stamp action.
type stampOut struct {
	N int `json:"n"`
}

// deskSite is a page whose actions have no form, so that the library's
// script registers each as a tool itself: stamp (with an output), ship (a
// confirm action), and close (available until it ran once). head is
// written at the top of the page's <head>, before the script's tag.
func deskSite(t *testing.T, head template.HTML) string {
	t.Helper()
	view := template.Must(template.New("desk").Parse(`<!doctype html><html lang="en"><head>{{.Scripts}}<title>Desk</title></head><body><h1>Desk</h1></body></html>`))
	s := site.New(site.Options{Name: "Desk",
		Auth: site.AuthFunc(func(r *http.Request) (site.Caller, error) {
			if _, err := r.Cookie("s"); err == nil {
				return site.Caller{ID: "p", Mode: protocol.AuthCookie, SignedIn: true}, nil
			}
			return site.Caller{}, nil
		})},
		site.ExtensionFunc(func(x *site.Extender) { x.Script(head) }), webmcp.Extension)
	var stamps atomic.Int64
	var closed atomic.Bool
	p := s.Page("/desk", site.PageOptions{Description: "The desk", View: view,
		Load: func(r *site.Request) (*site.State, error) { return &site.State{}, nil }})
	site.Handle(p, site.Action{Name: "stamp", Description: "Stamp a paper", Expose: protocol.ExposePublic},
		func(r *site.Request, in struct{}) (site.Result[stampOut], error) {
			return site.Result[stampOut]{Output: stampOut{N: int(stamps.Add(1))}}, nil
		})
	site.Handle(p, site.Action{Name: "ship", Description: "Ship the parcel", Expose: protocol.ExposeConfirm},
		func(r *site.Request, in struct{}) (site.Done, error) { return site.Done{}, nil })
	site.Handle(p, site.Action{Name: "close", Description: "Close the desk", Expose: protocol.ExposePublic,
		Guard: site.Guard{Text: "the desk is open", Check: func(*site.Request, *site.State) (bool, string) { return !closed.Load(), "" }}},
		func(r *site.Request, in struct{}) (site.Done, error) { closed.Store(true); return site.Done{}, nil })
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestBrowser_WebMCPOnTodaysAndTomorrowsChromium checks the library's
// script on the Chromium here (156: registerTool returns a promise,
// executeTool takes an object; 148: registerTool returns nothing, and an
// agent has only the testing API, see agentSide) and, through a stand-in
// for the browser's
// registerTool, on the one announced next (registerTool returns a Tool
// object with unregister): the annotations, the output schema and its
// structured content, a name the page took first, and a tool that goes
// when its action is no longer available.
func TestBrowser_WebMCPOnTodaysAndTomorrowsChromium(t *testing.T) {
	ctx := webmcpBrowser(t, 2*time.Minute)
	// The page registers a tool named close itself, before the script:
	// the script's own is refused, and the page keeps its tool.
	// What the script hands registerTool is kept too: a Chromium whose
	// agent side is the testing API lists no annotations.
	url := deskSite(t, `<script>(function () {
		const mc = document.modelContext || navigator.modelContext, register = mc.registerTool.bind(mc);
		register({name: "close", description: "the page's own", execute: () => "the page's"});
		window.handed = {};
		mc.registerTool = function (tool, options) {
			window.handed[tool.name] = tool.annotations;
			return register(tool, options);
		};
	})();</script>`)
	if err := chromedp.Do(ctx, chromedp.Navigate(url+"/desk")); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](`document.cookie = "s=1; path=/"`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(url+"/desk"), chromedp.WaitReady(chromedp.CSS(`html[data-webmcp-tools]`))); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(async () => {`+agentSide+`
		await new Promise(r => setTimeout(r, 300)); // the refusal of close is a promise's
		const tools = await agent.tools(), out = {};
		for (const x of tools) {
			out[x.name] = {annotations: x.annotations || window.handed[x.name], description: x.description};
		}
		const stamp = tools.find(x => x.name === "stamp");
		const r = await agent.run(stamp, {}); // text as it is, an object as JSON
		out.result = r.startsWith("{") ? JSON.parse(r) : r;
		out.mine = document.documentElement.getAttribute("data-webmcp-tools");
		return JSON.stringify(out);
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("the desk's tools: %v", err)
	}
	var tools map[string]json.RawMessage
	json.Unmarshal([]byte(got), &tools)
	annotations := func(name string) map[string]any {
		var tl struct{ Annotations map[string]any }
		json.Unmarshal(tools[name], &tl)
		return tl.Annotations
	}
	if a := annotations("ship"); a["consequentialHint"] != true || a["readOnlyHint"] != false {
		t.Errorf("ship, a confirm action: annotations %v, want consequentialHint", a)
	}
	if a := annotations("stamp"); a["consequentialHint"] == true || a["untrustedContentHint"] != true {
		t.Errorf("stamp: annotations %v", a)
	}
	var close struct{ Description string }
	json.Unmarshal(tools["close"], &close)
	if close.Description != "the page's own" || strings.Contains(string(tools["mine"]), "close") {
		t.Errorf("a tool the page registered first: %s, registered by the script %s", tools["close"], tools["mine"])
	}
	var res struct {
		Content           []struct{ Text string }
		StructuredContent stampOut
	}
	if err := json.Unmarshal(tools["result"], &res); err != nil || res.StructuredContent.N != 1 || len(res.Content) != 1 || !strings.Contains(res.Content[0].Text, "Done") {
		t.Errorf("stamp, an action with an output: %s (%v), want the delta's Markdown and structuredContent {n: 1}", tools["result"], err)
	}

	// Tomorrow's registerTool returns a Tool object: the script keeps it
	// and unregisters through it when close ran and is unavailable.
	url = deskSite(t, `<script>(function () {
		const mc = document.modelContext || navigator.modelContext, register = mc.registerTool.bind(mc);
		window.unregistered = [];
		window.outputs = {};
		mc.registerTool = function (tool, options) {
			register(tool, options);
			if (tool.outputSchema) { window.outputs[tool.name] = tool.outputSchema; }
			return {name: tool.name, unregister: function () { window.unregistered.push(tool.name); }};
		};
	})();</script>`)
	if err := chromedp.Do(ctx, chromedp.Navigate(url+"/desk"), chromedp.WaitReady(chromedp.CSS(`html[data-webmcp-tools]`))); err != nil {
		t.Fatal(err)
	}
	got, err = chromedp.Run(ctx, chromedp.Evaluate[string](`(async () => {`+agentSide+`
		const tools = await agent.tools();
		const before = tools.map(x => x.name).sort().join(" ");
		await agent.run(tools.find(x => x.name === "close"), {});
		for (let i = 0; i < 50 && !window.unregistered.length; i++) {
			await new Promise(r => setTimeout(r, 100));
		}
		const after = (await agent.tools()).map(x => x.name).sort().join(" ");
		return before + " | " + after + " | " + window.unregistered.join(" ") + " | " + JSON.stringify(window.outputs);
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("the desk with Tool objects: %v", err)
	}
	// (Cookies are no port's: the desk's signed-in session goes on.)
	if want := `close readPage ship stamp | readPage ship stamp | close | {"stamp":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}`; got != want {
		t.Errorf("tools before | after close ran | unregistered through the Tool object | output schemas:\n got %s\nwant %s", got, want)
	}
}
