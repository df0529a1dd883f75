package tasks

import (
	"context"
	"strings"
	"testing"
)

// Every task succeeds on every path this package drives, by its check in
// the database: a task that breaks (a page renamed, an action moved, a
// check that no longer holds) fails here, in CI.
func TestTasks(t *testing.T) {
	if n := len(All()); n < 30 {
		t.Errorf("%d tasks, want at least 30", n)
	}
	kinds := map[Kind]int{}
	for _, task := range All() {
		kinds[task.Kind]++
	}
	if kinds[Write] < 10 || kinds[Approval] < 3 || kinds[Unavailable] < 3 {
		t.Errorf("kinds %v", kinds)
	}
	ctx := context.Background()
	for _, p := range Paths() {
		for _, task := range All() {
			t.Run(p.Name+"/"+task.ID, func(t *testing.T) {
				r := Run(ctx, task, p)
				if why, ok := Impossible[p.Name+"/"+task.ID]; ok {
					if r.OK || r.Err == nil || !strings.Contains(r.Err.Error(), why) {
						t.Errorf("impossible on this path (%s), but: ok %v, %v", why, r.OK, r.Err)
					}
					return
				}
				if !r.OK {
					t.Errorf("%v (answer %q)", r.Err, r.Answer)
				}
			})
		}
	}
}

// No check passes on a store where the agent did nothing and said
// nothing: each one looks at what the task asks for.
func TestTasks_ChecksFailWhenNothingWasDone(t *testing.T) {
	ctx := context.Background()
	for _, task := range All() {
		t.Run(task.ID, func(t *testing.T) {
			w, err := NewWorld(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if task.Setup != nil {
				if err := task.Setup(ctx, w); err != nil {
					t.Fatal(err)
				}
			}
			if err := task.Check(ctx, w, "", &Log{}); err == nil {
				t.Error("the check passes on a store where nothing was done")
			}
		})
	}
}

// An unavailable task fails when the agent tried the action anyway, even
// with the right words; a question fails when the agent changed data.
func TestTasks_ChecksFailOnForcingOrWriting(t *testing.T) {
	ctx := context.Background()
	w, err := NewWorld(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	forced := &Log{Calls: map[string]int{"addToCart": 1}}
	for _, task := range All() {
		switch task.ID {
		case "sold-out":
			if task.Check(ctx, w, "Not possible: sold out", forced) == nil {
				t.Error("sold-out passes although addToCart was tried")
			}
			if err := task.Check(ctx, w, "Not possible: sold out", &Log{}); err != nil {
				t.Errorf("sold-out fails with the right answer: %v", err)
			}
		case "most-expensive":
			if task.Check(ctx, w, "Rain Shell", forced) == nil {
				t.Error("a question passes although the agent called an action")
			}
		}
	}
}
