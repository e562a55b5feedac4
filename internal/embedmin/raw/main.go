// Command raw runs the plugin embedmin runs with go.starlark.net alone: it
// executes plugin.star with a contribute and a tool builtin that record the
// tools, calls one with the JSON arguments and prints its text. It is the
// baseline of issue 26 point 1: what any program that runs such a plugin
// must link (rawrun, which it shares with internal/scalegen/rawstar,
// imports go.starlark.net alone).
//
//	raw PLUGIN_DIR TOOL '{"text": "hi"}'
package main

import (
	"go.starlark.net/lib/json"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/crystal-star/crystal-star/internal/embedmin/raw/rawrun"
)

func main() {
	rawrun.Main("raw PLUGIN_DIR TOOL JSON", func(dir, tool, argsJSON string) (string, error) {
		tools := rawrun.Tools{}
		th := &starlark.Thread{Name: "raw"}
		opts := &syntax.FileOptions{Set: true, While: true, TopLevelControl: true, GlobalReassign: false}
		if err := rawrun.Exec(th, opts, dir, "plugin.star", tools.Predeclared(starlark.StringDict{"json": json.Module})); err != nil {
			return "", err
		}
		args, err := starlark.Call(th, json.Module.Members["decode"], starlark.Tuple{starlark.String(argsJSON)}, nil)
		if err != nil {
			return "", err
		}
		return tools.Call(th, tool, args)
	})
}
