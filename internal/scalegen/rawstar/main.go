// Command rawstar is the raw go.starlark.net program the one-shot CLI is
// compared with (scale.sh): it reads plugin.toml and plugin.star of every
// plugin directory in DIR, executes each plugin.star once (the constructors
// and contribute record the tools, nothing is checked), then calls one tool
// with JSON arguments and prints its text. It does what any program that
// runs these plugins must do, and nothing else.
//
//	rawstar DIR TOOL '{"text": "hi"}'
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/crystal-star/crystal-star/builtins"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: rawstar DIR TOOL JSON")
		os.Exit(2)
	}
	tools := map[string]starlark.Value{}
	predeclared := starlark.StringDict{}
	for k, v := range builtins.Predeclared() {
		predeclared[k] = v
	}
	predeclared["tool"] = starlark.NewBuiltin("tool", func(_ *starlark.Thread, _ *starlark.Builtin, _ starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return starlarkstruct.FromKeywords(starlarkstruct.Default, kwargs), nil
	})
	predeclared["contribute"] = starlark.NewBuiltin("contribute", func(_ *starlark.Thread, _ *starlark.Builtin, _ starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
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
	})
	entries, err := os.ReadDir(os.Args[1])
	check(err)
	th := &starlark.Thread{Name: "raw"}
	for _, e := range entries {
		dir := filepath.Join(os.Args[1], e.Name())
		_, err := os.ReadFile(filepath.Join(dir, "plugin.toml"))
		check(err)
		src, err := os.ReadFile(filepath.Join(dir, "plugin.star"))
		check(err)
		g, err := starlark.ExecFileOptions(&builtins.Dialect, th, filepath.Join(dir, "plugin.star"), src, predeclared)
		check(err)
		g.Freeze()
	}
	run, ok := tools[os.Args[2]]
	if !ok {
		fmt.Fprintf(os.Stderr, "unknown tool %s\n", os.Args[2])
		os.Exit(1)
	}
	var args any
	check(json.Unmarshal([]byte(os.Args[3]), &args))
	out, err := starlark.Call(th, run, starlark.Tuple{starlark.None, builtins.FromJSON(args)}, nil)
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
