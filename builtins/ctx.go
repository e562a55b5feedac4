package builtins

import (
	"context"
	"fmt"
	"slices"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/crystal-star/crystal-star/contrib"
)

// ctxKind says which callback a ctx is passed to; some fields exist only for
// some kinds (out for commands, site for placeholders).
type ctxKind int

const (
	ctxTool ctxKind = iota
	ctxCommand
	ctxPlaceholder
	ctxAttach
)

// callCtx is the ctx object every callback receives (CC7): plugin identity
// and generation plus the host facts of this call. It never carries the
// user's question. It is created per call and never shared.
type callCtx struct {
	inst  *instance
	kind  ctxKind
	facts contrib.Facts
	site  contrib.Site
	ctx   context.Context // the call's context, for fields that do Go work on read
}

var _ starlark.HasAttrs = (*callCtx)(nil)

// ctxField is a ctx attribute added by a feature file of this package (env,
// store, status, data, session, models, ...). value returns nil when the
// attribute is absent for this call (e.g. a capability not declared).
type ctxField struct {
	name  string
	value func(c *callCtx) starlark.Value
}

func (inst *instance) newCtx(ctx context.Context, kind ctxKind) *callCtx {
	c := new(callCtx)
	inst.initCtx(c, ctx, kind)
	return c
}

// initCtx fills in c, a ctx object allocated by the caller.
func (inst *instance) initCtx(c *callCtx, ctx context.Context, kind ctxKind) {
	*c = callCtx{inst: inst, kind: kind, ctx: ctx}
	if sc := contrib.SessionFrom(ctx); sc != nil {
		c.facts = sc.Facts() // the session this call serves
	} else if inst.req.Services != nil {
		c.facts = inst.req.Services.Facts() // no session served: the host-wide facts
	}
}

func (c *callCtx) String() string        { return fmt.Sprintf("<ctx %s>", c.inst.req.Plugin) }
func (c *callCtx) Type() string          { return "ctx" }
func (c *callCtx) Freeze()               {}
func (c *callCtx) Truth() starlark.Bool  { return starlark.True }
func (c *callCtx) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: ctx") }

var baseCtxAttrs = []string{"approval_mode", "generation", "mode", "model", "plugin", "provider", "session_id", "workspace"}

// AttrNames lists the fields this ctx has.
func (c *callCtx) AttrNames() []string {
	names := slices.Clone(baseCtxAttrs)
	switch c.kind {
	case ctxCommand:
		names = append(names, "out")
	case ctxPlaceholder:
		names = append(names, "site")
	}
	for _, f := range ctxFields {
		if f.value(c) != nil {
			names = append(names, f.name)
		}
	}
	slices.Sort(names)
	return names
}

// Attr returns one field.
func (c *callCtx) Attr(name string) (starlark.Value, error) {
	switch name {
	case "plugin":
		return starlark.String(c.inst.req.Plugin), nil
	case "generation":
		return starlark.String(c.inst.req.Generation), nil
	case "workspace":
		return starlark.String(c.facts.Workspace), nil
	case "session_id":
		return starlark.String(c.facts.SessionID), nil
	case "mode":
		return starlark.String(c.facts.Mode), nil
	case "approval_mode":
		return starlark.String(c.facts.ApprovalMode), nil
	case "provider":
		return starlark.String(c.facts.Provider), nil
	case "model":
		return starlark.String(c.facts.Model), nil
	case "out":
		if c.kind == ctxCommand {
			return c.out(), nil
		}
	case "site":
		if c.kind == ctxPlaceholder {
			return starlark.String(c.site), nil
		}
	}
	for _, f := range ctxFields {
		if f.name == name {
			return f.value(c), nil
		}
	}
	return nil, nil
}

// out returns the command's output writer (CC11): write and fail become
// session notes.
func (c *callCtx) out() starlark.Value {
	emit := func(code contrib.Code) *starlark.Builtin {
		return starlark.NewBuiltin("out."+string(code), func(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var text string
			if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &text); err != nil {
				return nil, err
			}
			c.inst.note(contrib.Diag(code, c.inst.req.Plugin, callerPos(th, 0), "%s", text))
			return starlark.None, nil
		})
	}
	return starlarkstruct.FromStringDict(starlark.String("out"), starlark.StringDict{
		"write": emit(contrib.CommandOutput),
		"fail":  emit(contrib.CommandFailed),
	})
}

// invocationValue is the inv argument of a command: struct(name, args).
func invocationValue(inv contrib.Invocation) starlark.Value {
	return starlarkstruct.FromStringDict(starlark.String("invocation"), starlark.StringDict{
		"name": starlark.String(inv.Name),
		"args": starlark.String(inv.Args),
	})
}
