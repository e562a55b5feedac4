package builtins

import (
	"fmt"
	"slices"
	"sync"

	"go.starlark.net/starlark"
)

// store is ctx.store: one mutable map per generation, shared by all of that
// generation's callbacks and gone on reload. Values are JSON-like and are
// copied in and out, so no Starlark value is ever shared between concurrent
// calls. Safe for concurrent use.
type store struct {
	mu   sync.Mutex
	data map[string]any // decoded JSON values
}

// storeCtx is ctx.store, one per generation.
func storeCtx(c *callCtx) starlark.Value {
	return featureState(c.inst, "store", func() *store { return &store{data: map[string]any{}} })
}

var (
	_ starlark.HasSetKey = (*store)(nil)
	_ starlark.HasAttrs  = (*store)(nil)
)

func (s *store) String() string        { return "<store>" }
func (s *store) Type() string          { return "store" }
func (s *store) Freeze()               {}
func (s *store) Truth() starlark.Bool  { return starlark.True }
func (s *store) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: store") }

// Get implements store[key].
func (s *store) Get(k starlark.Value) (starlark.Value, bool, error) {
	key, ok := k.(starlark.String)
	if !ok {
		return nil, false, fmt.Errorf("store keys are strings, not %s", k.Type())
	}
	s.mu.Lock()
	v, found := s.data[string(key)]
	s.mu.Unlock()
	if !found {
		return nil, false, nil
	}
	return FromJSON(v), true, nil
}

// SetKey implements store[key] = value; the value must be JSON-like.
func (s *store) SetKey(k, v starlark.Value) error {
	key, ok := k.(starlark.String)
	if !ok {
		return fmt.Errorf("store keys are strings, not %s", k.Type())
	}
	decoded, err := copyJSON(v)
	if err != nil {
		return fmt.Errorf("store[%q]: %v", string(key), err)
	}
	s.mu.Lock()
	s.data[string(key)] = decoded
	s.mu.Unlock()
	return nil
}

// AttrNames lists the store's methods.
func (s *store) AttrNames() []string { return []string{"get", "keys", "pop"} }

// Attr returns one of get(key, default=None), keys() and pop(key, default=None).
func (s *store) Attr(name string) (starlark.Value, error) {
	switch name {
	case "get", "pop":
		return starlark.NewBuiltin("store."+name, func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var key string
			var dflt starlark.Value = starlark.None
			if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &key, &dflt); err != nil {
				return nil, err
			}
			s.mu.Lock()
			v, found := s.data[key]
			if found && name == "pop" {
				delete(s.data, key)
			}
			s.mu.Unlock()
			if !found {
				return dflt, nil
			}
			return FromJSON(v), nil
		}), nil
	case "keys":
		return starlark.NewBuiltin("store.keys", func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 0); err != nil {
				return nil, err
			}
			s.mu.Lock()
			keys := make([]string, 0, len(s.data))
			for k := range s.data {
				keys = append(keys, k)
			}
			s.mu.Unlock()
			slices.Sort(keys)
			return FromJSON(keys), nil
		}), nil
	}
	return nil, nil
}
