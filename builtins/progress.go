package builtins

import (
	"fmt"

	"go.starlark.net/starlark"

	"github.com/crystal-star/crystal-star/contrib"
)

// ctx.progress(done, total = None, message = None) reports a tool's
// progress to whoever asked for it (an MCP client that sent a progress
// token); with nobody listening it does nothing, so a tool calls it freely.
func progressCtx(c *callCtx) starlark.Value {
	if c.kind != ctxTool {
		return nil
	}
	return starlark.NewBuiltin("progress", c.progress)
}

func (c *callCtx) progress(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var done starlark.Value
	var total starlark.Value = starlark.None
	var message starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "done", &done, "total?", &total, "message?", &message); err != nil {
		return nil, err
	}
	d, ok := starlark.AsFloat(done)
	if !ok {
		return nil, fmt.Errorf("progress: done must be a number, not %s", done.Type())
	}
	var t float64
	if total != starlark.None {
		if t, ok = starlark.AsFloat(total); !ok {
			return nil, fmt.Errorf("progress: total must be a number or None, not %s", total.Type())
		}
	}
	var msg string
	if message != starlark.None {
		s, ok := starlark.AsString(message)
		if !ok {
			return nil, fmt.Errorf("progress: message must be a string or None, not %s", message.Type())
		}
		msg = s
	}
	if c.ctx != nil {
		if p := contrib.ProgressFrom(c.ctx); p != nil {
			p(d, t, msg)
		}
	}
	return starlark.None, nil
}
