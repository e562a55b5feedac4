package mcpserve

import (
	"encoding/json"
	"slices"
)

// mirror remembers what was last registered with the SDK, by key (tool
// name, prompt name, resource URI), as the JSON of its definition, so a
// sync touches only what differs: the SDK treats every add as a change.
type mirror map[string]string

type mirrors struct{ tools, prompts, resources, templates mirror }

func newMirrors() mirrors { return mirrors{mirror{}, mirror{}, mirror{}, mirror{}} }

// applyMirror registers each entry of want whose definition differs from
// what m recorded, then removes, in one call, every key m holds that want
// lacks. The SDK debounces the resulting changes into one list_changed.
func applyMirror[T any](m mirror, want map[string]T, add func(T), remove func(...string)) {
	for k, v := range want {
		b, err := json.Marshal(v)
		if err != nil || m[k] == string(b) {
			continue
		}
		if safeAdd(add, v) {
			m[k] = string(b)
		}
	}
	var gone []string
	for k := range m {
		if _, ok := want[k]; !ok {
			gone = append(gone, k)
			delete(m, k)
		}
	}
	if len(gone) > 0 {
		slices.Sort(gone)
		remove(gone...)
	}
}

// safeAdd reports whether add(v) returned: the SDK panics on a definition it
// rejects (a schema that is not an object, an invalid URI template), which
// must not take the host down; such an entry is left out of the registry.
func safeAdd[T any](add func(T), v T) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	add(v)
	return true
}
