package schemas

import (
	"bytes"
	"fmt"
	"io/fs"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Document files, by the document they describe.
const (
	Graph            = "graph.schema.json"
	ActionDescriptor = "action-descriptor.schema.json"
	ActionSummary    = "action-summary.schema.json"
	Call             = "call.schema.json"
	Delta            = "delta.schema.json"
	SiteIndex        = "site-index.schema.json"
)

var (
	compileOnce sync.Once
	compiled    map[string]*jsonschema.Schema
	compileErr  error
)

func compileAll() {
	c := jsonschema.NewCompiler()
	names, err := fs.Glob(FS, "*.schema.json")
	if err != nil {
		compileErr = err
		return
	}
	for _, name := range names {
		b, _ := FS.ReadFile(name)
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			compileErr = fmt.Errorf("schemas: %s: %w", name, err)
			return
		}
		if err := c.AddResource(name, doc); err != nil {
			compileErr = fmt.Errorf("schemas: %s: %w", name, err)
			return
		}
	}
	compiled = map[string]*jsonschema.Schema{}
	for _, name := range names {
		s, err := c.Compile(name)
		if err != nil {
			compileErr = fmt.Errorf("schemas: %s: %w", name, err)
			return
		}
		compiled[name] = s
	}
}

// Validate checks a JSON document against one of the schema files (such as
// Graph). The schemas are compiled once, on first use. The error of an
// invalid document is a *jsonschema.ValidationError listing every problem.
func Validate(file string, doc []byte) error {
	compileOnce.Do(compileAll)
	if compileErr != nil {
		return compileErr
	}
	s, ok := compiled[file]
	if !ok {
		return fmt.Errorf("schemas: no schema named %s", file)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("schemas: the document is not JSON: %w", err)
	}
	return s.Validate(v)
}
