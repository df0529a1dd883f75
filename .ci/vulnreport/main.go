// Command vulnreport reads govulncheck's JSON (-format json) on stdin,
// prints every vulnerability found, and fails when code of this
// repository calls a vulnerable function, of a module or of the standard
// library: the standard library is the Go that go.work's toolchain line
// names (.ci/run sets GOTOOLCHAIN=auto), which a maintainer raises to the
// release that fixes it.
//
//	go run .ci/vulnreport/main.go < report.json
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
)

type finding struct {
	OSV   string `json:"osv"`
	Fixed string `json:"fixed_version"`
	Trace []struct {
		Module   string `json:"module"`
		Version  string `json:"version"`
		Package  string `json:"package"`
		Function string `json:"function"`
	} `json:"trace"`
}

func main() {
	dec := json.NewDecoder(os.Stdin)
	type key struct{ osv, module, level, version, fixed string }
	seen := map[key]bool{}
	for {
		var msg struct {
			Finding *finding `json:"finding"`
		}
		if err := dec.Decode(&msg); err == io.EOF {
			break
		} else if err != nil {
			fmt.Fprintln(os.Stderr, "vulnreport: reading govulncheck's output:", err)
			os.Exit(2)
		}
		f := msg.Finding
		if f == nil || len(f.Trace) == 0 {
			continue
		}
		t := f.Trace[0]
		level := "required"
		switch {
		case t.Function != "":
			level = "called"
		case t.Package != "":
			level = "imported"
		}
		seen[key{f.OSV, t.Module, level, t.Version, f.Fixed}] = true
	}
	var called, stdlib []string
	var lines []string
	for k := range seen {
		line := fmt.Sprintf("%s %s@%s (%s), fixed in %s", k.osv, k.module, k.version, k.level, k.fixed)
		lines = append(lines, line)
		if k.level == "called" {
			if k.module == "stdlib" {
				stdlib = append(stdlib, k.osv)
			} else {
				called = append(called, line)
			}
		}
	}
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Println(l)
	}
	if len(stdlib) > 0 {
		fmt.Printf("%d vulnerabilities of the standard library are reachable: raise go.work's toolchain line to the release that fixes them\n", len(stdlib))
	}
	if len(called) > 0 {
		fmt.Printf("%d vulnerabilities of modules are reachable from our code: upgrade those modules\n", len(called))
	}
	if len(stdlib)+len(called) > 0 {
		os.Exit(1)
	}
}
