// Package layers holds no code: its test keeps the rules of the house in
// design.md, read from the import lines of the library's own Go files, so
// that an import that runs back up fails here rather than in a review.
package layers_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/affordances-go/affordances/"

// imports returns, for each file under dir (tests left out, and the
// nested modules examples/ and bench/ too), the project's packages it
// imports, as paths from the repository's root.
func imports(t *testing.T, dir string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(filepath.Join("..", "..", dir), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "examples" || d.Name() == "bench") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(filepath.Join("..", ".."), path)
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if own, ok := strings.CutPrefix(p, module); ok {
				out[filepath.ToSlash(rel)] = append(out[filepath.ToSlash(rel)], own)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 && dir != "protocol" {
		t.Fatalf("no file under %s imports the project: is the walk reading the tree?", dir)
	}
	return out
}

// below reports whether pkg is one of the given layers (a path prefix).
func below(pkg string, layers ...string) bool {
	for _, l := range layers {
		if pkg == l || strings.HasPrefix(pkg, l+"/") {
			return true
		}
	}
	return false
}

// TestProtocolIsTheGround: protocol imports nothing of the project.
func TestProtocolIsTheGround(t *testing.T) {
	for file, pkgs := range imports(t, "protocol") {
		for _, p := range pkgs {
			t.Errorf("%s imports %s: protocol is the bottom of the house", file, p)
		}
	}
}

// TestInternalImportsNothingAbove: the internal packages are the
// mechanics under site, client and the tools; they may use protocol, the
// schemas generated from it and each other, never a package that builds
// on them.
func TestInternalImportsNothingAbove(t *testing.T) {
	for file, pkgs := range imports(t, "internal") {
		for _, p := range pkgs {
			if !below(p, "protocol", "schemas", "internal") {
				t.Errorf("%s imports %s, a package above internal/", file, p)
			}
		}
	}
}

// TestSiteAndClientApart: the server library and the agent library stand
// beside each other; neither imports the other.
func TestSiteAndClientApart(t *testing.T) {
	for _, c := range []struct{ dir, never string }{{"site", "client"}, {"client", "site"}} {
		for file, pkgs := range imports(t, c.dir) {
			for _, p := range pkgs {
				if below(p, c.never) {
					t.Errorf("%s imports %s", file, p)
				}
			}
		}
	}
}

// TestSiteImportsNoDoorOrExtension: the core, package site itself, builds
// on protocol and the internal packages. Of its own subpackages it imports
// only the two stores whose defaults keep every site safe without
// configuration, the rate limiter and the idempotency keys; its doors
// (site/mcp, site/webmcp, site/inspector) and its extensions (site/approval,
// site/siteotel, the Redis limiter, botauth) plug in through its exported
// API.
func TestSiteImportsNoDoorOrExtension(t *testing.T) {
	for file, pkgs := range imports(t, "site") {
		if filepath.Dir(file) != "site" {
			continue
		}
		for _, p := range pkgs {
			if !below(p, "protocol", "internal") && p != "site/idempotency" && p != "site/ratelimit" {
				t.Errorf("%s imports %s: the core imports none of its doors or extensions", file, p)
			}
		}
	}
}

// extensionPackage matches a mention of a door's or an extension's
// package: its path, or its name used as a qualifier (approval.Mount).
var extensionPackage = regexp.MustCompile(`site/(approval|presence|mcp|webmcp|tokens|inspector|siteotel|ratelimit/redislimit)\b|\b(approval|presence|mcp|webmcp|tokens|inspector|siteotel|redislimit|botauth)\.[A-Z]`)

// extensionWord matches an exported name of the core that is an
// extension's or a door's by its very name.
var extensionWord = regexp.MustCompile(`MCP|Presence|Passkey|Inspector|Otel|^MountApprovals$|^ApprovalStatus$|^Approvals$|^ApprovalCall$|^ApprovalAsk$|^ErrApprovalNotFound$|^Standing(Approvals|Reasons)$`)

// TestCoreNamesNoExtension: the files directly in site/ name none of the
// doors and extensions that plug into it, in code, comments or strings;
// those plug in through the one seam (Extension) and the core knows them
// only by what they added there. The stages of step 6 (StagePresence,
// StageApproval) are the core's own order, not an extension's name.
func TestCoreNamesNoExtension(t *testing.T) {
	dir := filepath.Join("..", "..", "site")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, cg := range f.Comments {
			if m := extensionPackage.FindString(cg.Text()); m != "" {
				t.Errorf("site/%s:%d: a comment names %q", name, fset.Position(cg.Pos()).Line, m)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if m := extensionPackage.FindString(n.Value); n.Kind == token.STRING && m != "" {
					t.Errorf("site/%s:%d: a string names %q", name, fset.Position(n.Pos()).Line, m)
				}
			case *ast.Ident:
				if n.IsExported() && n.Obj != nil && n.Obj.Pos() == n.Pos() && extensionWord.MatchString(n.Name) && !strings.HasPrefix(n.Name, "Stage") {
					seen[n.Name] = true
				}
			case *ast.FuncDecl:
				if n.Name.IsExported() && extensionWord.MatchString(n.Name.Name) {
					seen[n.Name.Name] = true
				}
			}
			return true
		})
	}
	for n := range seen {
		t.Errorf("package site exports %s, which names an extension or a door: plug it in through the seam instead", n)
	}
}
