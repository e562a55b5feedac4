// Command raw runs the plugin embedmin runs with go.starlark.net alone: it
// executes plugin.star with a contribute and a tool builtin that record the
// tools, calls one with the JSON arguments and prints its text. It is the
// baseline of issue 26 point 1: what any program that runs such a plugin
// must link.
//
//	raw PLUGIN_DIR TOOL '{"text": "hi"}'
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"go.starlark.net/lib/json"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: raw PLUGIN_DIR TOOL JSON")
		os.Exit(2)
	}
	tools := map[string]starlark.Value{}
	predeclared := starlark.StringDict{
		"json": json.Module,
		"tool": starlark.NewBuiltin("tool", func(_ *starlark.Thread, _ *starlark.Builtin, _ starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return starlarkstruct.FromKeywords(starlarkstruct.Default, kwargs), nil
		}),
		"contribute": starlark.NewBuiltin("contribute", func(_ *starlark.Thread, _ *starlark.Builtin, _ starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			for _, kv := range kwargs {
				if list, ok := kv[1].(*starlark.List); ok && kv[0].(starlark.String) == "tools" {
					for i := range list.Len() {
						t := list.Index(i).(*starlarkstruct.Struct)
						name, _ := t.Attr("name")
						run, _ := t.Attr("run")
						tools[string(name.(starlark.String))] = run
					}
				}
			}
			return starlark.None, nil
		}),
	}
	src, err := os.ReadFile(filepath.Join(os.Args[1], "plugin.star"))
	check(err)
	th := &starlark.Thread{Name: "raw"}
	opts := &syntax.FileOptions{Set: true, While: true, TopLevelControl: true, GlobalReassign: false}
	g, err := starlark.ExecFileOptions(opts, th, "plugin.star", src, predeclared)
	check(err)
	g.Freeze()
	run, ok := tools[os.Args[2]]
	if !ok {
		fmt.Fprintf(os.Stderr, "unknown tool %s\n", os.Args[2])
		os.Exit(1)
	}
	args, err := starlark.Call(th, json.Module.Members["decode"], starlark.Tuple{starlark.String(os.Args[3])}, nil)
	check(err)
	out, err := starlark.Call(th, run, starlark.Tuple{starlark.None, args}, nil)
	check(err)
	if s, ok := out.(starlark.String); ok {
		fmt.Println(string(s))
	} else {
		fmt.Println(out)
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
