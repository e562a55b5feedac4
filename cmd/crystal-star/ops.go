package main

import (
	"errors"
	"fmt"

	"github.com/crystal-star/crystal-star/starhost"
)

// nearestPlugin adds "did you mean" to an error about an unknown plugin id.
func (e *env) nearestPlugin(err error, id string) error {
	if !errors.Is(err, starhost.ErrNoPlugin) || e.host == nil {
		return err
	}
	var ids []string
	for _, p := range e.host.Plugins() {
		ids = append(ids, p.ID)
	}
	hint := didYouMean(id, ids, "")
	if hint == "" {
		hint = "; run crystal-star plugins to list them"
	}
	return fmt.Errorf("%w%s", err, hint)
}

// runOp builds the runner of a plugin operation taking one argument (an id,
// or a directory for install) and an optional --project layer.
func runOp(name string, op func(h *starhost.Host, e *env, arg string, project bool) (starhost.OpResult, error)) func(*env, []string) error {
	return func(e *env, args []string) error {
		f, err := e.flags(args)
		if err != nil {
			return err
		}
		if len(f.args) != 1 {
			if name == "install" {
				return usagef("usage: crystal-star install DIR [--project]")
			}
			return usagef("usage: crystal-star %s ID", name)
		}
		e.deferNotes = true // printOp shows the plugin's state and reasons
		h, err := e.start()
		if err != nil {
			return err
		}
		res, err := op(h, e, f.args[0], f.has("project"))
		return e.printOp(res, e.nearestPlugin(err, f.args[0]), f.has("json"))
	}
}

// opFlags are the flags of install, enable, disable and remove.
var opFlags = []flagSpec{{name: "json", help: "print the outcome as JSON (docs/cli.md)"},
	{name: "project", help: "the workspace layer instead of the home (not for remove)"}}

var (
	installCmd = command{name: "install", args: "DIR", summary: "copy a plugin bundle into the home (or --project) plugins; grants nothing",
		flags: opFlags, example: "install plugins/review", run: runInstall}
	enableCmd = command{name: "enable", args: "ID", summary: "enable a plugin (config.toml; --project for the workspace layer)",
		flags: opFlags, example: "enable acme.review", run: runEnable}
	disableCmd = command{name: "disable", args: "ID", summary: "disable a plugin (config.toml; --project for the workspace layer)",
		flags: opFlags, example: "disable acme.review", run: runDisable}
	removeCmd = command{name: "remove", args: "ID", summary: "delete an installed plugin's directory",
		flags: opFlags, example: "remove acme.review", run: runRemove}
)

var (
	runInstall = runOp("install", func(h *starhost.Host, e *env, dir string, project bool) (starhost.OpResult, error) {
		return h.Operator().Install(e.ctx, dir, project)
	})
	runEnable = runOp("enable", func(h *starhost.Host, e *env, id string, project bool) (starhost.OpResult, error) {
		return h.Operator().Enable(e.ctx, id, project)
	})
	runDisable = runOp("disable", func(h *starhost.Host, e *env, id string, project bool) (starhost.OpResult, error) {
		return h.Operator().Disable(e.ctx, id, project)
	})
	runRemove = runOp("remove", func(h *starhost.Host, e *env, id string, _ bool) (starhost.OpResult, error) {
		return h.Operator().Remove(e.ctx, id)
	})
)
