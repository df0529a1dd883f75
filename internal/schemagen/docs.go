package schemagen

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// docs maps "Type" and "Type.Field" to the doc comments of the Go source in
// one directory, rewritten as plain one-paragraph text.
type docs map[string]string

func readDocs(dir string) (docs, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	d := docs{}
	fset := token.NewFileSet()
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				doc := ts.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				d[ts.Name.Name] = clean(doc.Text())
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				for _, fld := range st.Fields.List {
					for _, n := range fld.Names {
						d[ts.Name.Name+"."+n.Name] = clean(fld.Doc.Text())
					}
				}
			}
		}
	}
	return d, nil
}

var docLink = regexp.MustCompile(`\[([A-Z][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)?)\]`)

// clean joins a doc comment's lines into one paragraph and turns Go doc
// links such as [MediaType] into plain names.
func clean(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return docLink.ReplaceAllString(s, "$1")
}
