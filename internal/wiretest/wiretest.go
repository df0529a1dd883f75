// Package wiretest holds the helpers the project's tests share for wire
// documents: validation against the generated schemas, and golden files.
package wiretest

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/affordances-go/affordances/schemas"
)

// Update rewrites golden files instead of comparing with them:
// go test ./... -update.
var Update = flag.Bool("update", false, "rewrite golden files")

// Check validates doc against the generated schema file (such as
// "graph.schema.json").
func Check(file string, doc []byte) error { return schemas.Validate(file, doc) }

// Compile fails the test when the schema file does not compile.
func Compile(t testing.TB, file string) {
	t.Helper()
	if err := Check(file, []byte("{}")); err != nil {
		if _, ok := err.(*jsonschema.ValidationError); !ok {
			t.Fatalf("%s: %v", file, err)
		}
	}
}

// Valid fails the test when doc does not satisfy the schema file.
func Valid(t testing.TB, file string, doc []byte) {
	t.Helper()
	if err := Check(file, doc); err != nil {
		t.Errorf("document does not satisfy %s: %v\n%s", file, err, doc)
	}
}

// Golden compares doc, indented, with testdata/NAME, or writes it there
// with -update. JSON is compared after indenting, so the golden files stay
// readable while the wire stays compact.
func Golden(t testing.TB, name string, doc []byte) {
	t.Helper()
	var b bytes.Buffer
	if err := json.Indent(&b, doc, "", "  "); err != nil {
		t.Fatalf("golden %s: not JSON: %v\n%s", name, err, doc)
	}
	b.WriteByte('\n')
	path := filepath.Join("testdata", name)
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden %s: %v (run the test with -update to create it)", name, err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("golden %s differs (run with -update after checking the change):\ngot:\n%s\nwant:\n%s", name, b.Bytes(), want)
	}
}

// GoldenText compares a text document (Markdown) with testdata/NAME, or
// writes it there with -update.
func GoldenText(t testing.TB, name string, doc []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *Update {
		if err := os.WriteFile(path, doc, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden %s: %v (run the test with -update to create it)", name, err)
	}
	if !bytes.Equal(doc, want) {
		t.Errorf("golden %s differs (run with -update after checking the change):\ngot:\n%s\nwant:\n%s", name, doc, want)
	}
}
