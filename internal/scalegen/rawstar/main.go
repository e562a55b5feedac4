// Command rawstar is the raw go.starlark.net program the one-shot CLI is
// compared with (scale.sh): it reads plugin.toml and plugin.star of every
// plugin directory in DIR, executes each plugin.star once (the constructors
// and contribute record the tools, nothing is checked), then calls one tool
// with JSON arguments and prints its text. It does what any program that
// runs these plugins must do, and nothing else; what it shares with
// internal/embedmin/raw is rawrun.
//
//	rawstar DIR TOOL '{"text": "hi"}'
package main

import (
	"encoding/json"
	"os"
	"path/filepath"

	"go.starlark.net/starlark"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/internal/embedmin/raw/rawrun"
)

func main() {
	rawrun.Main("rawstar DIR TOOL JSON", func(root, tool, argsJSON string) (string, error) {
		tools := rawrun.Tools{}
		predeclared := tools.Predeclared(builtins.Predeclared())
		entries, err := os.ReadDir(root)
		if err != nil {
			return "", err
		}
		th := &starlark.Thread{Name: "raw"}
		for _, e := range entries {
			dir := filepath.Join(root, e.Name())
			if _, err := os.ReadFile(filepath.Join(dir, "plugin.toml")); err != nil {
				return "", err
			}
			if err := rawrun.Exec(th, &builtins.Dialect, dir, filepath.Join(dir, "plugin.star"), predeclared); err != nil {
				return "", err
			}
		}
		var args any
		if err := json.Unmarshal([]byte(argsJSON), &args); err != nil {
			return "", err
		}
		return tools.Call(th, tool, builtins.FromJSON(args))
	})
}
