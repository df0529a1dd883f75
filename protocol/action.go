package protocol

import "encoding/json"

// ActionSummary describes an action without anything that depends on the
// request: what the site index lists for each route.
type ActionSummary struct {
	// Name identifies the action on its route. It is unique there and
	// stays the same across releases.
	Name string `json:"name"`
	// Description says what the action does, for the agent and its user.
	Description string `json:"description"`
	// Input is the JSON Schema (2020-12) that a call's input must satisfy.
	Input json.RawMessage `json:"input"`
	// Output is the JSON Schema of the value a successful call returns in
	// its delta, when the action returns one.
	Output json.RawMessage `json:"output,omitempty"`
	// Expose says who may call the action.
	Expose Expose `json:"expose"`
	// Guard is the action's precondition, written for a reader.
	Guard string `json:"guard,omitempty"`
	// Effects names the entities that a call may change.
	Effects []string `json:"effects,omitempty"`
	// ReadOnly marks an action that changes nothing.
	ReadOnly bool `json:"readOnly,omitempty"`
	// Approval marks a confirm action that runs only once the person
	// approved it on the site itself: the call answers confirm_required
	// with an approvalUrl until the person approved that exact call there.
	// An extension of this implementation to v0; clients that ignore it
	// see a confirm action that keeps answering confirm_required.
	Approval bool `json:"approval,omitempty"`
}

// MarshalJSON writes the summary with an input schema even when none was
// set: an action without declared input accepts an empty object.
func (a ActionSummary) MarshalJSON() ([]byte, error) {
	type plain ActionSummary
	if len(a.Input) == 0 {
		a.Input = emptyObjectSchema
	}
	return json.Marshal(plain(a))
}

// ActionDescriptor is an action as a graph lists it: the summary plus
// whether this requester can call it right now, and if not, why.
type ActionDescriptor struct {
	ActionSummary
	// Available is the guard (and the expose rule) evaluated for this
	// request.
	Available bool `json:"available"`
	// Reason says why Available is false.
	Reason string `json:"reason,omitempty"`
}

// MarshalJSON writes the descriptor's fields flat, as the protocol has them.
// It is needed because the embedded summary has its own MarshalJSON, which
// encoding/json would otherwise use for the whole value.
func (a ActionDescriptor) MarshalJSON() ([]byte, error) {
	type plainSummary ActionSummary
	if len(a.Input) == 0 {
		a.Input = emptyObjectSchema
	}
	return json.Marshal(struct {
		plainSummary
		Available bool   `json:"available"`
		Reason    string `json:"reason,omitempty"`
	}{plainSummary(a.ActionSummary), a.Available, a.Reason})
}

var emptyObjectSchema = json.RawMessage(`{"type":"object"}`)
