package protocol

// Delta is the answer to a call, and the shape of every error a server
// sends to an agent. A successful call reports what changed on the page; a
// failed one carries an [Error] and changes nothing.
type Delta struct {
	// OK is true when the action ran.
	OK bool `json:"ok"`
	// Changed holds the new value of each entity the action changed, keyed
	// like the graph's entities. An entity that no longer exists is null.
	Changed map[string]any `json:"changed,omitempty"`
	// Output is the action's return value.
	Output any `json:"output,omitempty"`
	// ActionsAdded lists the descriptors that are new after the call or
	// whose availability changed.
	ActionsAdded []ActionDescriptor `json:"actionsAdded,omitempty"`
	// ActionsRemoved lists the names of actions no longer on the page.
	ActionsRemoved []string `json:"actionsRemoved,omitempty"`
	// Redirect is the path a person would have been sent to; an agent
	// should request it next.
	Redirect string `json:"redirect,omitempty"`
	// Message is a short sentence an agent can repeat to its user.
	Message string `json:"message,omitempty"`
	// Error says why the call failed, when OK is false.
	Error *Error `json:"error,omitempty"`
	// ApprovalURL is, on a confirm_required answer of an action with
	// approval, the page where the person approves this exact call, signed
	// in on the site; the agent repeats the call with confirm and the
	// approval's id once they did. An extension of this implementation.
	ApprovalURL string `json:"approvalUrl,omitempty"`
	// RepeatWith is, on a confirm_required answer, what the agent adds to
	// the same call to repeat it once the person agreed: confirm, and for
	// an action with approval the approval's id in the call's "approval"
	// member. An extension of this implementation: the names to send
	// back, so that no agent has to guess them.
	RepeatWith *Repeat `json:"repeatWith,omitempty"`
}

// Repeat is what to add to a call to repeat it once the person agreed
// (Delta.RepeatWith): the call's own members, by their names.
type Repeat struct {
	// Confirm is true: the person confirmed.
	Confirm bool `json:"confirm"`
	// Approval is the id of the person's approval on the site, for an
	// action with approval (Call.Approval).
	Approval string `json:"approval,omitempty"`
}

// Error is the error object of a failed [Delta].
type Error struct {
	// Code is the machine-readable reason.
	Code ErrorCode `json:"code"`
	// Message explains the failure to a reader. For internal errors it is
	// generic and reveals nothing of the server.
	Message string `json:"message"`
	// Issues lists every problem found in a call's input, for invalid_input.
	Issues []Issue `json:"issues,omitempty"`
}

// Error makes *Error usable as a Go error, so clients can return it.
func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Issue is one problem with a call's input.
type Issue struct {
	// Path is a JSON Pointer (RFC 6901) into the call's input; the empty
	// string is the input itself.
	Path string `json:"path"`
	// Message explains the problem to a reader.
	Message string `json:"message"`
	// Keyword is the JSON Schema keyword that failed, such as required or
	// maximum.
	Keyword string `json:"keyword"`
}

// Fail returns the delta for a failed request.
func Fail(code ErrorCode, message string, issues ...Issue) Delta {
	return Delta{Error: &Error{Code: code, Message: message, Issues: issues}}
}
