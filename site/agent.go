package site

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/affordances-go/affordances/internal/strictjson"
	"github.com/affordances-go/affordances/protocol"
)

// maxDepth bounds the nesting of a call body.
const maxDepth = 64

// serveAgentCall answers a POST of an Affordances call with a delta.
func (s *Site) serveAgentCall(w http.ResponseWriter, hr *http.Request, p *Page) {
	c, out, f := s.execute(w, hr, p, transportAgent, func(c *call) *failure { return c.decodeCall(w, hr) })
	if f != nil {
		writeDelta(w, hr, f.status, protocol.Delta{Error: &f.err})
		return
	}
	c.auditCall(http.StatusOK, "ok")
	writeDelta(w, hr, http.StatusOK, out.delta)
}

// decodeCall reads the body of an agent's call: within the size limit, a
// JSON object with no duplicate or case-variant keys, naming an action.
// Unknown members are ignored.
func (c *call) decodeCall(w http.ResponseWriter, hr *http.Request) *failure {
	body, err := io.ReadAll(http.MaxBytesReader(w, hr.Body, c.site.maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return fail(http.StatusRequestEntityTooLarge, protocol.CodeInvalidInput,
				fmt.Sprintf("the body is larger than %d bytes", c.site.maxBody))
		}
		return fail(http.StatusBadRequest, protocol.CodeInvalidInput, "the body could not be read")
	}
	return c.parseCall(body)
}

// parseCall parses a call body; it is the call decoder the fuzz target
// exercises.
func (c *call) parseCall(body []byte) *failure {
	obj, err := strictjson.ParseObject(body, maxDepth)
	if err != nil {
		return fail(http.StatusBadRequest, protocol.CodeInvalidInput, "the body is not a valid call: "+err.Error())
	}
	name, ok := obj.Values["action"].(string)
	if !ok || name == "" {
		return fail(http.StatusBadRequest, protocol.CodeInvalidInput, `the call has no "action" string`)
	}
	c.name = name
	if raw, ok := obj.Raw["input"]; ok {
		c.inputRaw = raw
		c.inputValue = obj.Values["input"]
	}
	switch v := obj.Values["confirm"].(type) {
	case nil:
		// absent or null: not confirmed
	case bool:
		c.confirm = v
	default:
		c.confirmBadTyp = true
	}
	if _, present := obj.Values["confirm"]; present && obj.Values["confirm"] == nil {
		c.confirmBadTyp = true
	}
	return nil
}
