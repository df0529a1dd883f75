package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// turn is one turn of a scripted model: what the last tool result must
// contain (what the model read), and the tool it calls next.
type turn struct {
	expect, tool, args string
}

// fakeModel is an OpenAI-compatible endpoint that plays back a
// conversation, refusing a request whose last tool result lacks what the
// turn expects, so that the harness's whole loop is exercised.
func fakeModel(t *testing.T, turns []turn) *httptest.Server {
	var mu sync.Mutex
	next := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-test" {
			http.Error(w, "wrong path or key", 400)
			return
		}
		var req chatRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "fake-1" || len(req.Tools) < 2 {
			http.Error(w, fmt.Sprintf("bad request: %v", err), 400)
			return
		}
		if next >= len(turns) {
			http.Error(w, "the conversation is over", 400)
			return
		}
		tu := turns[next]
		next++
		last := req.Messages[len(req.Messages)-1]
		if tu.expect != "" && (last.Role != "tool" || !strings.Contains(last.Content, tu.expect)) {
			t.Errorf("turn %d: the model reads %q, want it to contain %q", next, last.Content, tu.expect)
			http.Error(w, "unexpected", 400)
			return
		}
		tc := toolCall{ID: fmt.Sprintf("call_%d", next), Type: "function"}
		// {site} is the shop's URL, as the system message gives it.
		site := regexp.MustCompile(`at (http://[^, ]+),`).FindStringSubmatch(req.Messages[0].Content)
		args := tu.args
		if site != nil {
			args = strings.ReplaceAll(args, "{site}", site[1])
		}
		tc.Function.Name, tc.Function.Arguments = tu.tool, args
		json.NewEncoder(w).Encode(map[string]any{
			"choices": []any{map[string]any{"message": chatMessage{Role: "assistant", ToolCalls: []toolCall{tc}}}},
			"usage":   map[string]int{"prompt_tokens": 100 * next, "completion_tokens": 10},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func pathNamed(name string) Path {
	for _, p := range Paths() {
		if p.Name == name {
			return p
		}
	}
	panic(name)
}

func taskNamed(id string) Task {
	for _, t := range All() {
		if t.ID == id {
			return t
		}
	}
	panic(id)
}

// A model that does the task passes its check in the database; the
// harness reports the endpoint's usage and its turns.
func TestModel_AWriteOnTheGraphPath(t *testing.T) {
	srv := fakeModel(t, []turn{
		{"", "readPage", `{"page":"/"}`},
		{"Everyday Hoodie", "readPage", `{"page":"/products/everyday-hoodie"}`},
		{"HOOD-NAV-L", "callAction", `{"page":"/products/everyday-hoodie","action":"addToCart","input":{"sku":"HOOD-NAV-L"}}`},
		{`"ok":true`, "answer", `{"text":"An Everyday Hoodie in Navy, L is in your cart."}`},
	})
	m := Model{URL: srv.URL + "/v1", Key: "sk-test", Name: "fake-1"}
	r := RunModel(context.Background(), m, taskNamed("add-hoodie"), pathNamed("graph"))
	if !r.OK {
		t.Fatalf("%v", r.Err)
	}
	if r.Turns != 4 || r.PromptTokens != 1000 || r.CompletionTokens != 40 || r.Log.Exchanges != 3 {
		t.Errorf("turns %d, usage %d+%d, exchanges %d", r.Turns, r.PromptTokens, r.CompletionTokens, r.Log.Exchanges)
	}
}

// On the MCP path the model gets the store's tool list and reads MCP
// results; a question is checked against the database.
func TestModel_AQuestionOnTheMCPPath(t *testing.T) {
	srv := fakeModel(t, []turn{
		{"", "readPage", `{"page":"/"}`},
		{`"name":"Chore Jacket"`, "answer", `{"text":"The Chore Jacket costs 129.00 EUR."}`},
	})
	m := Model{URL: srv.URL + "/v1", Key: "sk-test", Name: "fake-1"}
	if r := RunModel(context.Background(), m, taskNamed("price-of"), pathNamed("mcp")); !r.OK {
		t.Fatalf("%v", r.Err)
	}
}

// A model that forces an unavailable action fails the task, even when
// its last words are right; so does a wrong answer.
func TestModel_ForcingOrAWrongAnswerFails(t *testing.T) {
	srv := fakeModel(t, []turn{
		{"", "readPage", `{"page":"/products/heavyweight-tee"}`},
		{"TEE-BLK-XL", "callAction", `{"page":"/products/heavyweight-tee","action":"addToCart","input":{"sku":"TEE-BLK-XL"}}`},
		{"error", "answer", `{"text":"Not possible: the Black XL is sold out."}`},
	})
	m := Model{URL: srv.URL + "/v1", Key: "sk-test", Name: "fake-1"}
	if r := RunModel(context.Background(), m, taskNamed("sold-out"), pathNamed("graph+index")); r.OK || !strings.Contains(r.Err.Error(), "called") {
		t.Errorf("forcing passed: ok %v, %v", r.OK, r.Err)
	}
	srv = fakeModel(t, []turn{{"", "answer", `{"text":"It costs 99.00 EUR."}`}})
	m.URL = srv.URL + "/v1"
	if r := RunModel(context.Background(), m, taskNamed("price-of"), pathNamed("graph")); r.OK {
		t.Error("a wrong answer passed")
	}
}
