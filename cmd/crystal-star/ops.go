package main

import (
	"github.com/crystal-star/crystal-star/starhost"
)

// runOp builds the runner of a plugin operation taking one argument (an id,
// or a directory for install) and an optional --project layer.
func runOp(name string, op func(h *starhost.Host, e *env, arg string, project bool) (starhost.OpResult, error)) func(*env, []string) error {
	return func(e *env, args []string) error {
		f, err := parseFlags(args, []string{"json", "project"}, nil)
		if err != nil {
			return err
		}
		if len(f.args) != 1 {
			if name == "install" {
				return usagef("usage: crystal-star install DIR [--project]")
			}
			return usagef("usage: crystal-star %s ID", name)
		}
		h, err := e.start()
		if err != nil {
			return err
		}
		res, err := op(h, e, f.args[0], f.has("project"))
		return e.printOp(res, err, f.has("json"))
	}
}

var (
	runInstall = runOp("install", func(h *starhost.Host, e *env, dir string, project bool) (starhost.OpResult, error) {
		return h.Install(e.ctx, dir, project)
	})
	runEnable = runOp("enable", func(h *starhost.Host, e *env, id string, project bool) (starhost.OpResult, error) {
		return h.Enable(e.ctx, id, project)
	})
	runDisable = runOp("disable", func(h *starhost.Host, e *env, id string, project bool) (starhost.OpResult, error) {
		return h.Disable(e.ctx, id, project)
	})
	runRemove = runOp("remove", func(h *starhost.Host, e *env, id string, _ bool) (starhost.OpResult, error) {
		return h.Remove(e.ctx, id)
	})
)
