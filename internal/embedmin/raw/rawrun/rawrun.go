// Package rawrun is what the two raw go.starlark.net baselines share
// (internal/embedmin/raw, internal/scalegen/rawstar): the tool and
// contribute builtins that record a plugin's tools, executing a plugin's
// plugin.star, calling one tool, and the command's frame. It imports
// go.starlark.net and the standard library alone, so a baseline links
// nothing of crystal-star's beyond it.
package rawrun

import (
	"fmt"
	"os"
	"path/filepath"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"
)

// Tools are the tools the executed plugins contributed: each one's run
// function by name.
type Tools map[string]starlark.Value

// Predeclared is base with tool and contribute added: tool returns a
// struct of its keywords, contribute records the tools it is given in t.
// Nothing is checked.
func (t Tools) Predeclared(base starlark.StringDict) starlark.StringDict {
	out := starlark.StringDict{}
	for k, v := range base {
		out[k] = v
	}
	out["tool"] = starlark.NewBuiltin("tool", func(_ *starlark.Thread, _ *starlark.Builtin, _ starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return starlarkstruct.FromKeywords(starlarkstruct.Default, kwargs), nil
	})
	out["contribute"] = starlark.NewBuiltin("contribute", func(_ *starlark.Thread, _ *starlark.Builtin, _ starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		for _, kv := range kwargs {
			if list, ok := kv[1].(*starlark.List); ok && kv[0].(starlark.String) == "tools" {
				for i := range list.Len() {
					s := list.Index(i).(*starlarkstruct.Struct)
					name, _ := s.Attr("name")
					run, _ := s.Attr("run")
					t[string(name.(starlark.String))] = run
				}
			}
		}
		return starlark.None, nil
	})
	return out
}

// Exec reads dir's plugin.star and executes it on th with predeclared,
// naming the file name in positions; its globals are frozen.
func Exec(th *starlark.Thread, opts *syntax.FileOptions, dir, name string, predeclared starlark.StringDict) error {
	src, err := os.ReadFile(filepath.Join(dir, "plugin.star"))
	if err != nil {
		return err
	}
	g, err := starlark.ExecFileOptions(opts, th, name, src, predeclared)
	if err != nil {
		return err
	}
	g.Freeze()
	return nil
}

// Call calls the tool named name with (None, args) and returns its text:
// the string it returns, else the value printed.
func (t Tools) Call(th *starlark.Thread, name string, args starlark.Value) (string, error) {
	run, ok := t[name]
	if !ok {
		return "", fmt.Errorf("unknown tool %s", name)
	}
	out, err := starlark.Call(th, run, starlark.Tuple{starlark.None, args}, nil)
	if err != nil {
		return "", err
	}
	if s, ok := out.(starlark.String); ok {
		return string(s), nil
	}
	return out.String(), nil
}

// Main is a baseline command's frame: its arguments are DIR TOOL JSON
// (else it prints usage and exits 2); it prints the text run returns, or
// the error and exits 1.
func Main(usage string, run func(dir, tool, args string) (string, error)) {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: "+usage)
		os.Exit(2)
	}
	text, err := run(os.Args[1], os.Args[2], os.Args[3])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(text)
}
