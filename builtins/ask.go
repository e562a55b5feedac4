package builtins

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"go.starlark.net/starlark"

	"github.com/crystal-star/crystal-star/contrib"
)

// AskSource is implemented by Services that can put a plugin's question to
// the person (ctx.ask): an MCP client's elicitation, the dev console's
// prompt. Ask blocks until the person answers, the host's ask_timeout
// passes (AnswerCancel) or ctx ends; a host with nobody to ask answers
// AnswerDecline. An error is a failure to ask (a broken transport), not a
// refusal.
type AskSource interface {
	Ask(ctx context.Context, plugin string, q contrib.Question) (contrib.Answer, error)
}

// askCtx is ctx.ask, for the callbacks a person is waiting on: tools and
// commands. Like a model call it needs a serving call; a placeholder, hook
// or timer runs inside other work and may not stop it for a person.
func askCtx(c *callCtx) starlark.Value {
	if c.kind != ctxTool && c.kind != ctxCommand {
		return nil
	}
	return starlark.NewBuiltin("ask", c.ask)
}

// ask(message, schema = None) puts a question to the person and returns
// the answer's values as a dict, or None when the person declines or
// dismisses it, ask_timeout passes, or the host has nobody to ask. schema
// is a flat JSON object schema; None asks for a confirmation only (an
// empty dict on accept).
func (c *callCtx) ask(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var message string
	var schema starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "message", &message, "schema?", &schema); err != nil {
		return nil, err
	}
	q, err := question(message, schema)
	if err != nil {
		return nil, err
	}
	src, _ := c.inst.req.Services.(AskSource)
	if src == nil {
		return starlark.None, nil
	}
	ctx := threadContext(th)
	done := hostWait(th)                      // the heap watchdog: a waiting run grows no heap
	resume := pauseRunClock(th)               // callback_timeout: the person's time is not the callback's
	resumeCall := contrib.PauseWaitClock(ctx) // and the caller's clock, when it has one
	answer, err := src.Ask(ctx, c.inst.req.Plugin, q)
	resumeCall()
	resume()
	done()
	if err != nil {
		return nil, fmt.Errorf("ask: %v", err)
	}
	if answer.Action != contrib.AnswerAccept {
		return starlark.None, nil
	}
	content := answer.Content
	if content == nil {
		content = map[string]any{}
	}
	return FromJSON(content), nil
}

// question reads ask's arguments: the schema as JSON, checked, with its
// property names in the order the plugin wrote them.
func question(message string, schema starlark.Value) (contrib.Question, error) {
	q := contrib.Question{Message: message, Schema: map[string]any{"type": "object", "properties": map[string]any{}}}
	if schema != starlark.None {
		if _, ok := schema.(*starlark.Dict); !ok {
			return q, fmt.Errorf("ask: schema must be a dict (a JSON object schema) or None, not %s", schema.Type())
		}
		raw, err := ToJSON(schema)
		if err != nil {
			return q, fmt.Errorf("ask: schema: %v", err)
		}
		q.Schema = nil
		if err := json.Unmarshal(raw, &q.Schema); err != nil {
			return q, fmt.Errorf("ask: schema: %v", err)
		}
		if err := contrib.CheckQuestionSchema(q.Schema); err != nil {
			return q, fmt.Errorf("ask: %v", err)
		}
		if props, _, _ := schema.(*starlark.Dict).Get(starlark.String("properties")); props != nil {
			if d, ok := props.(*starlark.Dict); ok {
				for _, k := range d.Keys() {
					if s, ok := starlark.AsString(k); ok {
						q.Fields = append(q.Fields, s)
					}
				}
			}
		}
	}
	return q, nil
}

// pauseRunClock stops th's callback_timeout clock until resume is called.
func pauseRunClock(th *starlark.Thread) (resume func()) {
	st, _ := th.Local(localRun).(*runState)
	if st == nil {
		return func() {}
	}
	start := time.Now()
	st.asking.Add(1)
	return func() {
		st.paused.Add(int64(time.Since(start)))
		st.asking.Add(-1)
	}
}
