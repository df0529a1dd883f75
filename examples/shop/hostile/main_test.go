package hostile_test

import (
	"fmt"
	"os"
	"sort"
	"testing"
)

// TestMain prints the number of cases of each category after a run.
func TestMain(m *testing.M) {
	code := m.Run()
	if len(counts) > 0 {
		names := make([]string, 0, len(counts))
		total := 0
		for k, n := range counts {
			names = append(names, k)
			total += n
		}
		sort.Strings(names)
		fmt.Print("hostile cases:")
		for _, k := range names {
			fmt.Printf(" %s %d,", k, counts[k])
		}
		fmt.Printf(" total %d\n", total)
	}
	os.Exit(code)
}
