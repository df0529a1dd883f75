package protocol_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/affordances-go/affordances/internal/wiretest"
	"github.com/affordances-go/affordances/protocol"
)

func TestEncoding_WritesRequiredFieldsAndOmitsEmptyOptionalOnes(t *testing.T) {
	cases := []struct {
		v    any
		want string
		file string
	}{
		{protocol.Graph{V: "0", Page: "/", Route: "/"}, `{"v":"0","page":"/","route":"/","entities":{},"actions":[]}`, "graph.schema.json"},
		{protocol.ActionDescriptor{ActionSummary: protocol.ActionSummary{Name: "a", Expose: protocol.ExposePublic}},
			`{"name":"a","description":"","input":{"type":"object"},"expose":"public","available":false}`, "action-descriptor.schema.json"},
		{protocol.ActionSummary{Name: "a", Expose: protocol.ExposeConfirm, ReadOnly: true},
			`{"name":"a","description":"","input":{"type":"object"},"expose":"confirm","readOnly":true}`, "action-summary.schema.json"},
		{protocol.Call{Action: "a"}, `{"action":"a"}`, "call.schema.json"},
		{protocol.Delta{OK: true}, `{"ok":true}`, "delta.schema.json"},
		{protocol.Delta{OK: true, Output: 0}, `{"ok":true,"output":0}`, "delta.schema.json"},
		{protocol.Delta{OK: true, Changed: map[string]any{"cart": nil}}, `{"ok":true,"changed":{"cart":null}}`, "delta.schema.json"},
		{protocol.Fail(protocol.CodeNotFound, "no such page"), `{"ok":false,"error":{"code":"not_found","message":"no such page"}}`, "delta.schema.json"},
		{protocol.SiteIndex{V: "0"}, `{"v":"0","routes":[],"auth":[]}`, "site-index.schema.json"},
		{protocol.SiteIndex{V: "0", Routes: []protocol.IndexRoute{{Route: "/"}}}, `{"v":"0","routes":[{"route":"/","actions":[]}],"auth":[]}`, "site-index.schema.json"},
	}
	for _, c := range cases {
		b, err := json.Marshal(c.v)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != c.want {
			t.Errorf("%T:\n got %s\nwant %s", c.v, b, c.want)
		}
		wiretest.Valid(t, c.file, b)
	}
}

func TestDecoding_IgnoresUnknownFields(t *testing.T) {
	var g protocol.Graph
	doc := `{"v":"0","page":"/p","route":"/p","entities":{"a":1},"actions":[{"name":"x","description":"d","input":{},"expose":"public","available":true,"cost":3}],"later":{"x":1}}`
	if err := json.Unmarshal([]byte(doc), &g); err != nil {
		t.Fatal(err)
	}
	if g.Page != "/p" || g.Action("x") == nil || !g.Action("x").Available || g.Action("x").Expose != protocol.ExposePublic {
		t.Errorf("decoded %+v", g)
	}
}

func TestCheckVersion_AcceptsOnlySupportedMajors(t *testing.T) {
	for v, ok := range map[string]bool{"0": true, "1": false, "": false, "00": false, "-1": false, "x": false, "0.1": false} {
		if err := protocol.CheckVersion(v); (err == nil) != ok {
			t.Errorf("CheckVersion(%q) = %v, want ok=%v", v, err, ok)
		}
	}
}

func TestErrorCodes_MapToTheirStatus(t *testing.T) {
	want := map[protocol.ErrorCode]int{
		protocol.CodeNotFound: 404, protocol.CodeUnauthorized: 401, protocol.CodeRateLimited: 429,
		protocol.CodeInvalidInput: 400, protocol.CodeUnavailable: 409, protocol.CodeConfirmRequired: 428,
		protocol.CodeInternal: 500,
	}
	for _, c := range protocol.ErrorCodes() {
		if c.Status() != want[c] || !c.Valid() {
			t.Errorf("%s: status %d valid %v", c, c.Status(), c.Valid())
		}
	}
	if protocol.ErrorCode("teapot").Status() != http.StatusInternalServerError || protocol.ErrorCode("teapot").Valid() {
		t.Error("unknown code")
	}
}
