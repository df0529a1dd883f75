package site

import (
	"bytes"
	"encoding/json"

	"github.com/affordances-go/affordances/protocol"
)

// changedEntities computes a delta's changed field. With effects declared
// it holds exactly those entities (null for one that no longer exists);
// otherwise every top-level entity whose JSON differs before and after,
// added or removed.
func changedEntities(effects []string, before, after *State) map[string]any {
	out := map[string]any{}
	if len(effects) > 0 {
		for _, k := range effects {
			v, ok := after.entity(k)
			if !ok {
				out[k] = nil
				continue
			}
			out[k] = v
		}
		return out
	}
	for k, v := range after.entities {
		nb, err := json.Marshal(v)
		if err != nil {
			out[k] = v // let the delta's encoder report it
			continue
		}
		if old, ok := before.entities[k]; ok {
			ob, err := json.Marshal(old)
			if err == nil && bytes.Equal(ob, nb) {
				continue
			}
		}
		out[k] = json.RawMessage(nb)
	}
	for k := range before.entities {
		if _, ok := after.entities[k]; !ok {
			out[k] = nil
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// actionChanges compares the action lists before and after a call:
// descriptors that are new or whose availability or reason changed are
// added; names no longer listed are removed.
func actionChanges(before, after []protocol.ActionDescriptor) (added []protocol.ActionDescriptor, removed []string) {
	old := make(map[string]protocol.ActionDescriptor, len(before))
	for _, a := range before {
		old[a.Name] = a
	}
	for _, a := range after {
		o, ok := old[a.Name]
		if !ok || o.Available != a.Available || o.Reason != a.Reason {
			added = append(added, a)
		}
		delete(old, a.Name)
	}
	for _, a := range before {
		if _, gone := old[a.Name]; gone {
			removed = append(removed, a.Name)
		}
	}
	return added, removed
}
