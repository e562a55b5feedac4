package builtins

import (
	"fmt"

	"go.starlark.net/lib/json"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/crystal-star/crystal-star/contrib"
)

// go.starlark.net's str, repr, print and json builtins walk a value
// recursively inside one step: a list nested a million deep (built in three
// million steps, under the budget) keeps them busy for minutes — neither the
// step budget nor cancellation reaches into a builtin — and json.decode of a
// million '[' overflows the Go stack, which no recover can catch. The
// wrappers below refuse such values before the walk begins (docs/isolation.md).

// maxContainers bounds the containers (lists, tuples, dicts, sets, structs)
// one printed or encoded value may hold, counting a shared one each time it
// is reached: a list of two references to a list of two references... is
// exponential in its text, and its walk would never end.
const maxContainers = 1_000_000

// checkedUniverse wraps one of the language's own builtins (str, repr,
// print) with the nesting check.
func checkedUniverse(name string) *starlark.Builtin {
	return checkedBuiltin(name, starlark.Universe[name].(*starlark.Builtin))
}

// checkedJSON is the json module with every member checked: decode and
// indent refuse text nested too deep, encode and encode_indent values.
func checkedJSON() *starlarkstruct.Module {
	members := starlark.StringDict{}
	for name, fn := range json.Module.Members {
		inner := fn.(*starlark.Builtin)
		switch name {
		case "decode", "indent":
			members[name] = starlark.NewBuiltin("json."+name, func(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				if len(args) > 0 {
					if s, ok := args[0].(starlark.String); ok {
						if err := contrib.CheckJSONNesting([]byte(s)); err != nil {
							return nil, fmt.Errorf("%s: %v", b.Name(), err)
						}
					}
				}
				return inner.CallInternal(th, args, kwargs)
			})
		default: // encode, encode_indent
			members[name] = checkedBuiltin("json."+name, inner)
		}
	}
	return &starlarkstruct.Module{Name: "json", Members: members}
}

// checkedBuiltin wraps inner so that its positional arguments are checked
// with checkNesting first.
func checkedBuiltin(name string, inner *starlark.Builtin) *starlark.Builtin {
	return starlark.NewBuiltin(name, func(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		for _, a := range args {
			if err := checkNesting(a); err != nil {
				return nil, fmt.Errorf("%s: %v", name, err)
			}
		}
		return inner.CallInternal(th, args, kwargs)
	})
}

// checkNesting refuses a value nested deeper than contrib.MaxNesting or
// holding more than maxContainers containers. A container already on the
// path is a cycle, which the wrapped builtins handle themselves.
func checkNesting(v starlark.Value) error {
	w := nestingWalk{}
	return w.walk(v)
}

type nestingWalk struct {
	path  []any // the mutable containers on the path, by identity
	depth int
	count int
}

func (w *nestingWalk) walk(v starlark.Value) error {
	var children starlark.Iterable
	switch x := v.(type) {
	case *starlark.List, starlark.Tuple, *starlark.Set:
		children = x.(starlark.Iterable)
	case *starlark.Dict:
		entries := make(starlark.Tuple, 0, 2*x.Len())
		for _, item := range x.Items() {
			entries = append(entries, item[0], item[1])
		}
		children = entries
	case *starlarkstruct.Struct:
		fields := make(starlark.Tuple, 0, len(x.AttrNames()))
		for _, name := range x.AttrNames() {
			f, _ := x.Attr(name)
			fields = append(fields, f)
		}
		children = fields
	default:
		return nil
	}
	var id any // tuples are immutable: a cycle always passes a mutable container
	if _, ok := v.(starlark.Tuple); !ok {
		id = v
		for _, p := range w.path {
			if p == id {
				return nil // a cycle: printed as [...], refused by json.encode
			}
		}
	}
	if w.depth >= contrib.MaxNesting {
		return fmt.Errorf("value nested more than %d levels deep", contrib.MaxNesting)
	}
	if w.count++; w.count > maxContainers {
		return fmt.Errorf("value holds more than %d lists, dicts and other containers", maxContainers)
	}
	w.depth++
	w.path = append(w.path, id)
	defer func() { w.path, w.depth = w.path[:len(w.path)-1], w.depth-1 }()
	it := children.Iterate()
	defer it.Done()
	var elem starlark.Value
	for it.Next(&elem) {
		if err := w.walk(elem); err != nil {
			return err
		}
	}
	return nil
}
