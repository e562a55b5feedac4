package builtins

import (
	"context"

	"go.starlark.net/starlark"

	"github.com/crystal-star/crystal-star/contrib"
)

// classifier(classify = fn): fn(ctx, tool, args) returns {"risk": ...,
// "permission": ...} or None (CC10). The host asks it only for tools its
// built-in classification does not know.
func newClassifier(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var classify starlark.Callable
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "classify", &classify); err != nil {
		return nil, err
	}
	e := newEntry(th, "classifier", "")
	e.fn = classify
	return e, nil
}

func stageClassifier(inst *instance, e *entry) {
	inst.staging.AddClassifier(contrib.Classifier{Pos: e.pos, Classify: inst.classifyFunc(e.pos, e.fn)})
}

func (inst *instance) classifyFunc(pos contrib.Pos, fn starlark.Callable) contrib.ClassifyFunc {
	const what = "classifier"
	return func(ctx context.Context, tool string, args any) (contrib.Classification, bool, error) {
		out, err := inst.call(ctx, what, fn, inst.newCtx(ctx, ctxAttach), starlark.String(tool), FromJSON(args))
		if err != nil {
			return contrib.Classification{}, false, err
		}
		if out == starlark.None {
			return contrib.Classification{}, false, nil
		}
		d, ok := out.(*starlark.Dict)
		if !ok {
			return contrib.Classification{}, false, inst.badReturn(pos, what, out, `{"risk": ..., "permission": ...} or None`)
		}
		var c contrib.Classification
		for key, dst := range map[string]*string{"risk": &c.Risk, "permission": &c.Permission} {
			v, _, _ := d.Get(starlark.String(key))
			s, _ := v.(starlark.String)
			*dst = string(s)
		}
		if err := c.Validate(); d.Len() != 2 || err != nil {
			why := "only the keys risk and permission are allowed"
			if err != nil {
				why = err.Error()
			}
			return contrib.Classification{}, false, &runFailure{diag: contrib.Diag(contrib.CallbackFailed, inst.req.Plugin, pos,
				"%s returned %s: %s", what, out, why)}
		}
		return c, true, nil
	}
}
