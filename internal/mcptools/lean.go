package mcptools

import (
	"encoding/json"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/internal/strictjson"
	"github.com/affordances-go/affordances/protocol"
)

// The lean tool list: for a host that loads many servers, three tools
// instead of one per action: readPage, siteIndex and callAction, which
// names the page and the action and carries the input. A call through it
// is the per-action tool's call, with the same pipeline, errors,
// confirmation and approvals.

// CallActionName is the lean list's one tool that acts.
const CallActionName = "callAction"

// CallAction is the lean list's tool that runs any action of a page.
var CallAction = &sdk.Tool{
	Name:  CallActionName,
	Title: "Call an action",
	Description: "Run an action of a page: the page's path, the action's name as readPage or siteIndex list it, and its input. " +
		"Confirm actions ask the person for approval first.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{` +
		`"page":{"type":"string","description":"the page's path, such as /products/heavyweight-tee"},` +
		`"action":{"type":"string","description":"the action's name"},` +
		`"input":{"type":"object","description":"the action's input, as its schema in the graph says"},` +
		`"approval":{"type":"string","description":"the approval page's URL, once the person approved there"}},` +
		`"required":["page","action"],"additionalProperties":false}`),
	Annotations: &sdk.ToolAnnotations{OpenWorldHint: &closedWorld},
}

// LeanInstructions tell a host how the lean tools fit together.
const LeanInstructions = `This server is an Affordances site: every page has a graph (what it shows, the actions there with their input schemas, and where to go next), read with readPage; siteIndex lists every route and its actions. callAction runs an action of a page with its input. Confirm actions ask the person for approval; a declined or unanswered approval runs nothing.`

// Lean finds the per-action tool a callAction names, among tools, and
// writes its arguments as that tool takes them, so that the call goes
// through the tool's own checks and confirmation. When no tool runs that
// action on that page (an action no agent may call, or none at all), it
// returns a nil tool and the call as the site's pipeline takes it, which
// answers why (not_found, or a people-only action's refusal).
func Lean(tools []*Tool, raw json.RawMessage) (*Tool, json.RawMessage, *DoorCall, *protocol.Error) {
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage(`{}`)
	}
	if _, err := strictjson.ParseObject(raw, 64); err != nil {
		return nil, nil, nil, &protocol.Error{Code: protocol.CodeInvalidInput, Message: "the arguments were not accepted: " + err.Error()}
	}
	var args struct {
		Page     string                     `json:"page"`
		Action   string                     `json:"action"`
		Input    map[string]json.RawMessage `json:"input"`
		Approval *string                    `json:"approval"`
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, nil, nil, &protocol.Error{Code: protocol.CodeInvalidInput, Message: "the arguments were not accepted: " + err.Error()}
	}
	if args.Page == "" || args.Page[0] != '/' {
		return nil, nil, nil, &protocol.Error{Code: protocol.CodeInvalidInput, Message: "the arguments were not accepted",
			Issues: []protocol.Issue{{Path: "/page", Message: "must be a path starting with /", Keyword: "page"}}}
	}
	var found *Tool
	for _, t := range tools {
		if t.Action.Name == args.Action && t.page.Match(args.Page) {
			found = t
			break
		}
	}
	if found == nil {
		in, _ := json.Marshal(args.Input)
		if args.Input == nil {
			in = nil
		}
		return nil, nil, &DoorCall{Page: args.Page, Action: args.Action, Input: in}, nil
	}
	out := map[string]json.RawMessage{}
	for k, v := range args.Input {
		out[k] = v
	}
	if found.PageArg != "" {
		if _, clash := out[found.PageArg]; clash {
			return nil, nil, nil, &protocol.Error{Code: protocol.CodeInvalidInput, Message: "the arguments were not accepted",
				Issues: []protocol.Issue{{Path: "/input/" + found.PageArg, Message: "is not an input of " + args.Action, Keyword: "additionalProperties"}}}
		}
		out[found.PageArg], _ = json.Marshal(args.Page)
	}
	if args.Approval != nil {
		out[ApprovalArg], _ = json.Marshal(*args.Approval)
	}
	b, _ := json.Marshal(out)
	return found, b, nil, nil
}
