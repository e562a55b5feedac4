package builtins

import (
	"context"
	"fmt"

	"go.starlark.net/starlark"

	"github.com/crystal-star/crystal-star/contrib"
)

// Content parts (MC1). A tool declared with multimodal = True may return
// image(...), audio(...) or resource(...), or a list mixing them with
// strings (text parts). The crystal-star spelling of CrystalCode's
// "same-name multimodal variant" is this one declaration on the one tool:
// the variant shares the name, schema and catalogs by construction, and the
// plugin reads ctx.session.image_input when it wants to answer differently
// for a model without images. The host drops what the model cannot take.

// partValue is a content part in Starlark: immutable, so it needs no freeze.
type partValue struct{ part contrib.Part }

var _ starlark.HasAttrs = (*partValue)(nil)

func (p *partValue) String() string {
	if p.part.Type == contrib.PartResource {
		return fmt.Sprintf("resource(%q)", p.part.URI)
	}
	return fmt.Sprintf("%s(<%d bytes>, %q)", p.part.Type, p.part.Size(), p.part.MIME)
}
func (p *partValue) Type() string          { return "content" }
func (p *partValue) Freeze()               {}
func (p *partValue) Truth() starlark.Bool  { return starlark.True }
func (p *partValue) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: content") }

// Attr exposes type, mime, uri and size.
func (p *partValue) Attr(name string) (starlark.Value, error) {
	switch name {
	case "type":
		return starlark.String(p.part.Type), nil
	case "mime":
		return starlark.String(p.part.MIME), nil
	case "uri":
		return starlark.String(p.part.URI), nil
	case "size":
		return starlark.MakeInt(p.part.Size()), nil
	}
	return nil, nil
}

// AttrNames lists the readable attributes.
func (p *partValue) AttrNames() []string { return []string{"mime", "size", "type", "uri"} }

// byteArg accepts bytes or str (its bytes) for binary payloads.
func byteArg(fn, param string, v starlark.Value) ([]byte, error) {
	switch v := v.(type) {
	case starlark.Bytes:
		return []byte(v), nil
	case starlark.String:
		return []byte(v), nil
	}
	return nil, fmt.Errorf("%s: %s must be bytes or str, not %s", fn, param, v.Type())
}

// newMedia builds image(data, mime) and audio(data, mime).
func newMedia(t contrib.PartType) func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
	return func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var data starlark.Value
		var mime string
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, "data", &data, "mime", &mime); err != nil {
			return nil, err
		}
		raw, err := byteArg(b.Name(), "data", data)
		if err != nil {
			return nil, err
		}
		return checkedPart(b.Name(), contrib.Part{Type: t, Data: raw, MIME: mime})
	}
}

// newResource builds resource(uri, text = None, blob = None, mime = "").
func newResource(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var uri, mime string
	var text, blob starlark.Value = starlark.None, starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "uri", &uri, "text?", &text, "blob?", &blob, "mime?", &mime); err != nil {
		return nil, err
	}
	p := contrib.Part{Type: contrib.PartResource, URI: uri, MIME: mime}
	if s, ok := text.(starlark.String); ok {
		p.Text = string(s)
	} else if text != starlark.None {
		return nil, fmt.Errorf("resource: text must be str, not %s", text.Type())
	}
	if blob != starlark.None {
		raw, err := byteArg(b.Name(), "blob", blob)
		if err != nil {
			return nil, err
		}
		p.Blob = raw
	}
	return checkedPart(b.Name(), p)
}

// checkedPart validates a part when it is made, so a bad mime type fails
// at the plugin's line. Sizes are checked on the result, where an
// oversized one answers the stable code content_too_large.
func checkedPart(fn string, p contrib.Part) (starlark.Value, error) {
	if err := contrib.CheckPart(p); err != nil {
		return nil, fmt.Errorf("%s: %w", fn, err)
	}
	return &partValue{part: p}, nil
}

// contentParts reads a tool's return value as content parts: one part, or a
// list or tuple holding at least one part (its strings are text parts). ok is false
// for anything else, which converts as before (text or JSON).
func contentParts(v starlark.Value) (parts []contrib.Part, ok bool, err error) {
	if p, isPart := v.(*partValue); isPart {
		return []contrib.Part{p.part}, true, nil
	}
	var list starlark.Indexable
	switch v := v.(type) {
	case *starlark.List:
		list = v
	case starlark.Tuple:
		list = v
	default:
		return nil, false, nil
	}
	for i := 0; i < list.Len(); i++ {
		switch e := list.Index(i).(type) {
		case *partValue:
			ok = true
			parts = append(parts, e.part)
		case starlark.String:
			parts = append(parts, contrib.Part{Type: contrib.PartText, Text: string(e)})
		default:
			err = fmt.Errorf("content list item %d is a %s; want str, image, audio or resource", i, e.Type())
		}
	}
	if !ok {
		return nil, false, nil
	}
	return parts, true, err
}

// multimodalOnly wraps a tool that did not declare multimodal = True: a
// content result fails with tool_failed and a diagnostic at the tool, so
// hosts can rely on ToolInfo.Multimodal.
func (inst *instance) multimodalOnly(name string, pos contrib.Pos, run contrib.ToolFunc) contrib.ToolFunc {
	return func(ctx context.Context, args any) contrib.Result {
		res := run(ctx, args)
		if len(res.Parts) > 0 {
			inst.note(contrib.Diag(contrib.CallbackFailed, inst.req.Plugin, pos,
				"tool %s returned content parts but is not declared multimodal = True", name))
			// Why and where, as for every other failure (run.go): the
			// declaration to fix is the tool(...) call.
			return contrib.Failure(contrib.ErrToolFailed, inst.at("content parts from a tool not declared multimodal = True", pos))
		}
		return res
	}
}
