package site

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/affordances-go/affordances/internal/body"
	"github.com/affordances-go/affordances/internal/negotiate"
	"github.com/affordances-go/affordances/internal/respond"
	"github.com/affordances-go/affordances/internal/route"
	"github.com/affordances-go/affordances/internal/schema"
	"github.com/affordances-go/affordances/internal/strictjson"
	"github.com/affordances-go/affordances/protocol"
)

// maxDepth bounds the nesting of a call body.
const maxDepth = 64

// serveAgentCall answers a POST of an Affordances call with a delta.
func (s *Site) serveAgentCall(w http.ResponseWriter, hr *http.Request, p *Page) {
	c, out, e := s.execute(w.Header(), hr, p, TransportAgent, func(d *decoded) *Error { return s.decodeCall(w, hr, d) })
	if e != nil {
		writeFailure(w, hr, e)
		return
	}
	c.auditCall(http.StatusOK, "ok")
	if out.encoded != nil && !negotiate.Markdown(hr) {
		respond.Document(w, hr, http.StatusOK, out.encoded)
		return
	}
	if out.encoded != nil {
		json.Unmarshal(out.encoded, &out.delta) // a replayed answer, asked for in Markdown
	}
	writeDelta(w, hr, http.StatusOK, out.delta)
}

// decodeCall reads an agent's call: its Idempotency-Key header, and its
// body within the size limit, a JSON object with no duplicate or
// case-variant keys, naming an action. Unknown members are ignored.
func (s *Site) decodeCall(w http.ResponseWriter, hr *http.Request, d *decoded) *Error {
	d.idemKey = idempotencyKeyOf(hr)
	var raw []byte
	err := body.Read(w, hr, s.opts.Limits.MaxBodyBytes, s.opts.Limits.BodyTimeout, func() (err error) {
		raw, err = io.ReadAll(hr.Body)
		return err
	})
	if err != nil {
		return bodyError(err, "body", s.opts.Limits.MaxBodyBytes)
	}
	return d.parseCall(raw)
}

// parseCall parses a call body; it is the call decoder the fuzz target
// exercises.
func (d *decoded) parseCall(body []byte) *Error {
	obj, err := strictjson.ParseObject(body, maxDepth)
	if err != nil {
		return newError(protocol.CodeInvalidInput, "the body is not a valid call: "+err.Error())
	}
	name, ok := obj.Values["action"].(string)
	if !ok || name == "" {
		return newError(protocol.CodeInvalidInput, `the call has no "action" string`)
	}
	d.name = name
	if raw, ok := obj.Raw["input"]; ok {
		d.input = jsonInput{raw: raw, v: obj.Values["input"]}
	}
	if v, present := obj.Values["approval"]; present {
		id, isString := v.(string)
		if !isString {
			d.invalid = "approval must be a string: the id of the person's approval"
		}
		d.approvalID = route.LastSegment(id)
	}
	// confirm is optional, but when present it must be a boolean: null or
	// any other value is invalid input.
	if v, present := obj.Values["confirm"]; present {
		b, isBool := v.(bool)
		d.confirm = b
		if !isBool {
			d.invalid = "confirm must be true or false"
		}
	}
	return nil
}

// takeCall takes a call a transport decoded itself (Execute): the same
// fields as a posted body, without its JSON, with the input parsed as
// strictly.
func (d *decoded) takeCall(in Call) *Error {
	if in.Action == "" {
		return newError(protocol.CodeInvalidInput, "the call names no action")
	}
	d.name, d.confirm, d.approvalID = in.Action, in.Confirm, route.LastSegment(in.Approval)
	d.confirmedBasis = in.Basis
	if in.IdempotencyKey != "" {
		d.idemKey = in.IdempotencyKey
	}
	if len(in.Input) > 0 {
		v, err := strictjson.Parse(in.Input, maxDepth-1)
		if err != nil {
			return newError(protocol.CodeInvalidInput, "the input is not valid JSON: "+err.Error())
		}
		d.input = jsonInput{raw: in.Input, v: v}
	}
	return nil
}

// jsonInput is an input written in JSON (an agent's call, Execute's): its
// bytes, and the value strictjson parsed from them.
type jsonInput struct {
	raw []byte
	v   any
}

func (in jsonInput) value(*schema.Schema) (any, []byte, []protocol.Issue) { return in.v, in.raw, nil }
func (in jsonInput) identity() any                                        { return in.v }

// bodyError is the failure of a body that could not be read: 413 over the
// size limit, 400 otherwise.
func bodyError(err error, what string, limit int64) *Error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return newError(protocol.CodeInvalidInput,
			fmt.Sprintf("the %s is larger than %d bytes", what, limit)).withStatus(http.StatusRequestEntityTooLarge)
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return newError(protocol.CodeInvalidInput, "the "+what+" did not arrive in time")
	}
	return newError(protocol.CodeInvalidInput, "the "+what+" could not be read")
}
