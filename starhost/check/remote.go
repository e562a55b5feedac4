package check

import (
	"slices"

	"go.starlark.net/syntax"

	"github.com/crystal-star/crystal-star/contrib"
)

// RemoteForbidden lists the ctx fields an executor cannot give a remote
// tool (docs/remote.md): session and review facts, model clients and the
// status sink belong to an agent session, which an executor has none of.
// The executor refuses a bundle whose remote tools read them, with the same
// findings as check.
var RemoteForbidden = []string{"session", "review", "models", "status", "session_id", "mode", "approval_mode", "provider", "model"}

// SessionOnlyStages are the contribute() keywords of attach stages an
// executor never runs: they exist for an agent session.
var SessionOnlyStages = []string{"attach_session", "attach_clients", "attach_status"}

// remoteTool is a tool(..., remote = True) call of the bundle.
type remoteTool struct {
	name string
	pos  syntax.Position // of the remote keyword
	run  *function       // nil when not evidently one of the bundle's
}

// noteRemote records a tool(...) call marked remote = True, and the
// session-only attach stages a contribute() call gives.
func (c *checker) noteRemote(k *call, given map[string]syntax.Expr) {
	switch k.name() {
	case "tool":
		v, ok := given["remote"]
		if id, isIdent := v.(*syntax.Ident); !ok || !isIdent || id.Name != "True" {
			return
		}
		name, _ := StringLiteral(given["name"])
		var run *function
		if r, ok := given["run"]; ok {
			run = c.callable(k.fi, r)
		}
		c.remote = append(c.remote, remoteTool{name: name, pos: keywordPos(k.x, "remote"), run: run})
	case "contribute":
		for _, stage := range SessionOnlyStages {
			if v, ok := given[stage]; ok {
				if id, isIdent := v.(*syntax.Ident); isIdent && id.Name == "None" {
					continue
				}
				c.sessionStages = append(c.sessionStages, keywordPos(k.x, stage))
			}
		}
	}
}

// keywordPos is the position of keyword name in call x.
func keywordPos(x *syntax.CallExpr, name string) syntax.Position {
	for _, arg := range x.Args {
		if b, ok := arg.(*syntax.BinaryExpr); ok && b.Op == syntax.EQ {
			if id, ok := b.X.(*syntax.Ident); ok && id.Name == name {
				return id.NamePos
			}
		}
	}
	return x.Lparen
}

// checkRemote reports what the remote tools need that an executor cannot
// give (RemoteIneligible): the models capability, a forbidden ctx field
// read by a remote tool's run, a session-only attach stage.
func (c *checker) checkRemote() {
	if len(c.remote) == 0 {
		return
	}
	first := c.remote[0]
	if slices.Contains(c.b.Capabilities, "models") {
		c.report(contrib.RemoteIneligible, first.pos, "tool %s is remote = True but plugin.toml asks for the models capability, which an executor never gives; drop remote = True or the capability", first.name)
	}
	for _, pos := range c.sessionStages {
		c.report(contrib.RemoteIneligible, pos, "a plugin with remote tools (%s) contributes a session-only attach stage an executor never runs; move the session work to another plugin or drop remote = True", first.name)
	}
	for _, t := range c.remote {
		if t.run != nil {
			c.checkRemoteRun(t)
		}
	}
}

// checkRemoteRun reports each forbidden ctx field t's run reads.
func (c *checker) checkRemoteRun(t remoteTool) {
	fn := t.run
	if len(fn.params) == 0 {
		return
	}
	first, ok := fn.params[0].(*syntax.Ident)
	if !ok {
		return
	}
	visit := func(n syntax.Node) bool {
		x, ok := n.(*syntax.DotExpr)
		if !ok {
			return true
		}
		chain, root := dotChain(x)
		if root != first.Name || len(chain) == 0 {
			return true
		}
		if f := chain[0]; slices.Contains(RemoteForbidden, f.Name) {
			c.report(contrib.RemoteIneligible, f.NamePos, "tool %s is remote = True but reads ctx.%s, which an executor cannot give (it has no agent session); pass what it needs in the arguments, or drop remote = True", t.name, f.Name)
		}
		return false
	}
	if fn.expr != nil {
		syntax.Walk(fn.expr, visit)
	}
	for _, s := range fn.body {
		syntax.Walk(s, visit)
	}
}
