package protocol

import "encoding/json"

// Call is the body an agent posts to a page's URL to run one of its actions.
type Call struct {
	// Action names the action on the page's route.
	Action string `json:"action"`
	// Input is the action's input. When it is left out, servers validate
	// it as an empty object.
	Input json.RawMessage `json:"input,omitempty"`
	// Confirm is set by an agent only after a person approved the summary
	// of a confirm action. Servers ignore it on other actions.
	Confirm bool `json:"confirm,omitempty"`
	// Approval is the id of the approval the person gave on the site, for
	// an action with approval (see ActionSummary.Approval). An extension
	// of this implementation; servers that do not know it ignore it.
	Approval string `json:"approval,omitempty"`
}
