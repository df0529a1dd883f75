package schemas_test

import (
	"bytes"
	"io/fs"
	"os"
	"testing"

	"github.com/affordances-go/affordances/internal/schemagen"
	"github.com/affordances-go/affordances/internal/wiretest"
	"github.com/affordances-go/affordances/schemas"
)

// TestSchemasMatchGeneration fails when the committed files differ from a
// fresh generation: run go generate ./... and commit the result.
func TestSchemasMatchGeneration(t *testing.T) {
	want, err := schemagen.Generate("../protocol")
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range want {
		got, err := os.ReadFile(name)
		if err != nil {
			t.Errorf("%s: %v (run go generate ./...)", name, err)
			continue
		}
		if !bytes.Equal(got, b) {
			t.Errorf("%s differs from a fresh generation: run go generate ./... and commit", name)
		}
	}
	entries, _ := fs.Glob(schemas.FS, "*")
	for _, e := range entries {
		if _, ok := want[e]; !ok {
			t.Errorf("%s is no longer generated: delete it", e)
		}
	}
}

// TestSchemasCompile checks that every schema is valid JSON Schema 2020-12.
func TestSchemasCompile(t *testing.T) {
	for _, d := range schemagen.Documents() {
		wiretest.Compile(t, d.File)
	}
}

func TestSchemasAcceptAndReject(t *testing.T) {
	cases := []struct {
		file, doc string
		ok        bool
	}{
		{"graph.schema.json", `{"v":"0","page":"/","route":"/","entities":{},"actions":[]}`, true},
		{"graph.schema.json", `{"v":"1","page":"/","route":"/","entities":{},"actions":[]}`, false},
		{"graph.schema.json", `{"v":"0","page":"/","route":"/","entities":{}}`, false},
		{"graph.schema.json", `{"v":"0","page":"/","route":"/","entities":{},"actions":[],"later":1}`, true},
		{"action-descriptor.schema.json", `{"name":"a","description":"","input":{"type":"object"},"expose":"public","available":true}`, true},
		{"action-descriptor.schema.json", `{"name":"a","description":"","input":{},"expose":"everyone","available":true}`, false},
		{"action-descriptor.schema.json", `{"name":"a","description":"","input":{},"expose":"public"}`, false},
		{"action-summary.schema.json", `{"name":"a","description":"d","input":true,"expose":"confirm"}`, true},
		{"call.schema.json", `{"action":"addToCart","input":{"sku":"X"},"confirm":true}`, true},
		{"call.schema.json", `{"action":"addToCart","confirm":"yes"}`, false},
		{"delta.schema.json", `{"ok":false,"error":{"code":"invalid_input","message":"m","issues":[{"path":"/qty","message":"m","keyword":"maximum"}]}}`, true},
		{"delta.schema.json", `{"ok":false,"error":{"code":"teapot","message":"m"}}`, false},
		{"site-index.schema.json", `{"v":"0","routes":[{"route":"/","actions":[]}],"auth":["cookie","bearer"]}`, true},
		{"site-index.schema.json", `{"v":"0","routes":[],"auth":["password"]}`, false},
	}
	for _, c := range cases {
		err := wiretest.Check(c.file, []byte(c.doc))
		if (err == nil) != c.ok {
			t.Errorf("%s %s: valid=%v, want %v (%v)", c.file, c.doc, err == nil, c.ok, err)
		}
	}
}
