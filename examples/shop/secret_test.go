package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
)

// Instances that start together on a missing secret file all end with the
// same secret: one creates it, whole, and the others read that one.
func TestReadSecret_InstancesStartingTogetherShareOne(t *testing.T) {
	dir := t.TempDir()
	for round := range 200 {
		path := filepath.Join(dir, fmt.Sprint(round, ".secret"))
		got := make([][]byte, 8)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range got {
			wg.Go(func() {
				<-start
				b, err := readSecret(path, "")
				if err != nil {
					t.Error(err)
				}
				got[i] = b
			})
		}
		close(start)
		wg.Wait()
		for i := range got {
			if len(got[i]) != 32 || !bytes.Equal(got[i], got[0]) {
				t.Fatalf("round %d: instance %d kept a secret of its own (%d bytes)", round, i, len(got[i]))
			}
		}
	}
}
