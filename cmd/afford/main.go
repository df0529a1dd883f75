// Command afford reads and operates Affordances sites from the command
// line: it lists a site's index, shows a page's graph, and calls actions,
// asking before it confirms anything.
//
//	go install github.com/affordances-go/affordances/cmd/afford@latest
//	afford --help
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}
