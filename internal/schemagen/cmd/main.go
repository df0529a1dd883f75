// Command schemagen writes the generated schema files into the current
// directory. It is run by go generate in the schemas folder.
package main

import (
	"fmt"
	"os"

	"github.com/affordances-go/affordances/internal/schemagen"
)

func main() {
	files, err := schemagen.Generate("../protocol")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for name, b := range files {
		if err := os.WriteFile(name, b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
