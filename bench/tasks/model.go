package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// Model is an OpenAI-compatible chat completions endpoint: the harness
// that runs the tasks with a real model instead of the scripts. It is off
// unless configured (ModelFromEnv), since no model is reachable from CI.
type Model struct {
	// URL is the API's base, such as https://api.openai.com/v1; the
	// harness posts to URL + "/chat/completions".
	URL string
	// Key is sent as a bearer token, when set.
	Key string
	// Name is the model, such as gpt-4.1-mini.
	Name string
	// MaxTurns bounds the model's turns on one task. Default: 40.
	MaxTurns int
	// HTTP sends the requests. Default: a client with a 2-minute timeout.
	HTTP *http.Client
}

// ModelFromEnv reads the model from AFFORD_MODEL_URL, AFFORD_MODEL_KEY
// and AFFORD_MODEL; ok is false when AFFORD_MODEL_URL is not set.
func ModelFromEnv() (m Model, ok bool) {
	m = Model{URL: strings.TrimRight(os.Getenv("AFFORD_MODEL_URL"), "/"), Key: os.Getenv("AFFORD_MODEL_KEY"), Name: os.Getenv("AFFORD_MODEL")}
	return m, m.URL != ""
}

// ModelResult is a task done by a model on a path.
type ModelResult struct {
	Result
	// Turns is how many completions the task took; PromptTokens and
	// CompletionTokens what the endpoint reported using.
	Turns                          int
	PromptTokens, CompletionTokens int
}

// The chat completions wire format, the part the harness uses.
type (
	chatMessage struct {
		Role       string     `json:"role"`
		Content    string     `json:"content,omitempty"`
		ToolCalls  []toolCall `json:"tool_calls,omitempty"`
		ToolCallID string     `json:"tool_call_id,omitempty"`
	}
	toolCall struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	chatTool struct {
		Type     string       `json:"type"`
		Function toolFunction `json:"function"`
	}
	toolFunction struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	chatRequest struct {
		Model    string        `json:"model"`
		Messages []chatMessage `json:"messages"`
		Tools    []chatTool    `json:"tools"`
	}
	chatResponse struct {
		Choices []struct {
			Message chatMessage `json:"message"`
		} `json:"choices"`
		Usage struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
)

// answerTool ends a task with the model's answer to the person.
const answerTool = "answer"

// RunModel does a task on a path (any of Paths and BrowserPaths) with the
// model: it gives the model the statement and the path's tools, runs each tool call it makes through
// the path's agent, and ends when the model calls answer (or replies
// without a tool call). The outcome is checked like a script's.
func RunModel(ctx context.Context, m Model, t Task, p Path) ModelResult {
	var r ModelResult
	r.Result = attempt(ctx, t, p, func(ctx context.Context, w *World, a Agent) (string, error) {
		msgs := []chatMessage{
			{Role: "system", Content: modelSystem(a, w)},
			{Role: "user", Content: t.Statement},
		}
		var refresh func([]chatTool) []chatTool
		if _, ok := a.(*SnapshotAgent); ok {
			// Pages register tools as the browser moves: the host lists
			// them again before each turn.
			refresh = func([]chatTool) []chatTool { return modelTools(a) }
		}
		scout := NewScout(a)
		return m.converse(ctx, &r, msgs, modelTools(a), refresh, func(name string, args json.RawMessage) string {
			return runTool(ctx, scout, a, name, args)
		})
	})
	return r
}

// converse runs the conversation until the model answers.
func (m Model) converse(ctx context.Context, r *ModelResult, msgs []chatMessage, tools []chatTool, refresh func([]chatTool) []chatTool, run func(string, json.RawMessage) string) (string, error) {
	turns := m.MaxTurns
	if turns <= 0 {
		turns = 40
	}
	for range turns {
		if refresh != nil {
			tools = refresh(tools)
		}
		res, err := m.complete(ctx, chatRequest{Model: m.Name, Messages: msgs, Tools: tools})
		if err != nil {
			return "", err
		}
		r.Turns++
		r.PromptTokens += res.Usage.PromptTokens
		r.CompletionTokens += res.Usage.CompletionTokens
		if len(res.Choices) == 0 {
			return "", errors.New("a completion without a choice")
		}
		msg := res.Choices[0].Message
		if len(msg.ToolCalls) == 0 {
			return msg.Content, nil
		}
		msgs = append(msgs, chatMessage{Role: "assistant", Content: msg.Content, ToolCalls: msg.ToolCalls})
		for _, tc := range msg.ToolCalls {
			if tc.Function.Name == answerTool {
				var a struct {
					Text string `json:"text"`
				}
				json.Unmarshal([]byte(tc.Function.Arguments), &a)
				return a.Text, nil
			}
			out := run(tc.Function.Name, json.RawMessage(tc.Function.Arguments))
			msgs = append(msgs, chatMessage{Role: "tool", ToolCallID: tc.ID, Content: out})
		}
	}
	return "", fmt.Errorf("no answer after %d turns", turns)
}

func (m Model) complete(ctx context.Context, body chatRequest) (*chatResponse, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, "POST", m.URL+"/chat/completions", bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if m.Key != "" {
		req.Header.Set("Authorization", "Bearer "+m.Key)
	}
	hc := m.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 2 * time.Minute}
	}
	res, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	rb, err := io.ReadAll(io.LimitReader(res.Body, 16<<20))
	if err != nil {
		return nil, err
	}
	if res.StatusCode != 200 {
		return nil, fmt.Errorf("the endpoint answered %s: %.300s", res.Status, rb)
	}
	var out chatResponse
	if err := json.Unmarshal(rb, &out); err != nil {
		return nil, fmt.Errorf("the endpoint's answer: %w", err)
	}
	return &out, nil
}

// modelSystem tells the model where it is and how it ends a task.
func modelSystem(a Agent, w *World) string {
	var b strings.Builder
	b.WriteString("You act for a person on the web shop at " + w.URL + ", with their API token; use the tools. ")
	b.WriteString("Do what they ask, no more. When something cannot be done, say why without trying it. ")
	b.WriteString("End by calling " + answerTool + " with what you tell the person.")
	if ga, ok := a.(*GraphAgent); ok && ga.index != nil {
		ix, _ := json.Marshal(ga.index)
		b.WriteString("\n\nThe site index:\n" + string(ix))
	}
	return b.String()
}

// modelTools are the path's tools in the chat format: the MCP tool list
// on the MCP path; Playwright MCP's (and the page's) on the browser
// paths; readPage and callAction (with signIn for a password the person
// gives) on the Affordances paths; and answer.
func modelTools(a Agent) []chatTool {
	fn := func(name, desc, params string) chatTool {
		return chatTool{Type: "function", Function: toolFunction{Name: name, Description: desc, Parameters: json.RawMessage(params)}}
	}
	tools := []chatTool{fn(answerTool, "Tell the person the outcome, and end.", `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)}
	if sa, ok := a.(*SnapshotAgent); ok {
		// The browser paths: Playwright MCP's own tools (with the page's
		// WebMCP tools as they appear, see refreshTools).
		list, err := sa.cs.ListTools(context.Background(), nil)
		if err == nil {
			for _, t := range sa.listed(list.Tools) {
				params, _ := json.Marshal(t.InputSchema)
				tools = append(tools, chatTool{Type: "function", Function: toolFunction{Name: t.Name, Description: t.Description, Parameters: params}})
			}
		}
		return tools
	}
	if ma, ok := a.(*MCPAgent); ok {
		for _, t := range ma.tools {
			params, _ := json.Marshal(t.InputSchema)
			tools = append(tools, chatTool{Type: "function", Function: toolFunction{Name: t.Name, Description: t.Description, Parameters: params}})
		}
		return tools
	}
	return append(tools,
		fn("readPage", "Read a page of the shop by its path (such as /): its entities, its actions (available now, or why not) and its links.",
			`{"type":"object","properties":{"page":{"type":"string"}},"required":["page"]}`),
		fn("callAction", "Call an action of a page with its input; the answer is what changed. An action that needs the person's approval asks them and waits.",
			`{"type":"object","properties":{"page":{"type":"string"},"action":{"type":"string"},"input":{"type":"object"}},"required":["page","action"]}`),
		fn("signIn", "Sign in as the person with the email and password they gave, for what a token may not do.",
			`{"type":"object","properties":{"email":{"type":"string"},"password":{"type":"string"}},"required":["email","password"]}`))
}

// runTool runs a model's tool call through the agent and returns what the
// model reads back.
func runTool(ctx context.Context, s *Scout, a Agent, name string, raw json.RawMessage) string {
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil {
		return "error: the arguments are not a JSON object: " + err.Error()
	}
	if sa, ok := a.(*SnapshotAgent); ok {
		// The browser: the tool's text, as Playwright MCP gives it. A page
		// tool (webmcp_ACTION) is an action's call.
		if action, ok := strings.CutPrefix(name, "webmcp_"); ok {
			a.Log().called(action)
		}
		text, err := sa.tool(ctx, name, args)
		if err != nil {
			return "error: " + err.Error()
		}
		return text
	}
	if ma, ok := a.(*MCPAgent); ok {
		// The host gives the model the tool's whole result, as MCP has it.
		if name != "readPage" && name != "siteIndex" {
			action, _, _ := strings.Cut(name, "_")
			a.Log().called(action)
		}
		res, err := ma.call(ctx, name, args)
		if err != nil {
			return "error: " + err.Error()
		}
		b, _ := json.Marshal(res)
		return string(b)
	}
	str := func(k string) string { v, _ := args[k].(string); return v }
	var v any
	var err error
	switch name {
	case "readPage":
		v, err = s.Read(ctx, str("page"))
	case "signIn":
		err = a.SignIn(ctx, str("email"), str("password"))
		v = "Signed in."
	case "callAction":
		v, err = s.Call(ctx, str("page"), str("action"), args["input"])
	default:
		err = fmt.Errorf("no tool %s", name)
	}
	if err != nil {
		return "error: " + err.Error()
	}
	b, _ := json.Marshal(v)
	return string(b)
}
