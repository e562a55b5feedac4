package contrib

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// ToolSnapshot is a frozen, ordered list of tool proxies (DC4, DC12). It
// holds only ids: every Invoke re-resolves the proxy against the registry's
// current view, so a snapshot taken before a generation was revoked yields
// tool_unavailable. Safe for concurrent use.
type ToolSnapshot struct {
	reg    *Registry
	tools  []toolEntry
	byName map[string]int
}

// Tools returns a frozen snapshot of catalog c (CC6).
func (r *Registry) Tools(c Catalog) *ToolSnapshot { return r.View().snapshot(r, c) }

// ToolInfo is the projection of one tool (DC4): a copy of its definition and
// the (plugin, generation) its proxy resolves to. External tools have no
// plugin.
type ToolInfo struct {
	Name        string          `json:"name"`
	Plugin      string          `json:"plugin"`
	Generation  string          `json:"-"`
	ToolSet     string          `json:"tool_set,omitempty"`
	Catalogs    string          `json:"catalogs"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	ReadOnly    bool            `json:"read_only"`
	// Namespace and CanonicalName (namespace.name) are what the host shows;
	// Name stays the model-facing name. A plugin tool's namespace defaults
	// to its plugin id, an external tool's to its tool set (MC4).
	Namespace     string `json:"namespace"`
	CanonicalName string `json:"canonical_name"`
	// RequiresApproval is effective: declared, else !ReadOnly (MC4).
	RequiresApproval bool `json:"requires_approval"`
	// Multimodal: the tool may return content parts (MC1).
	Multimodal bool `json:"multimodal"`
	// OutputSchema is the tool's output_schema, or nil.
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	// Remote: the tool is rpc-eligible, remote = True (DC7).
	Remote bool `json:"remote"`
}

// List returns the projections, in catalog order.
func (s *ToolSnapshot) List() []ToolInfo {
	out := make([]ToolInfo, len(s.tools))
	for i := range s.tools {
		out[i] = s.tools[i].info()
	}
	return out
}

// Len returns the number of tools in the snapshot.
func (s *ToolSnapshot) Len() int { return len(s.tools) }

// Invoke calls the tool name with JSON arguments: the arguments are decoded
// and validated against the tool's schema first (invalid_arguments naming
// each failing path), then the proxy re-resolves its generation — following
// a reload to the plugin's new generation (AT2), tool_unavailable once the
// plugin stopped — and the call is admitted through the generation's gate
// and run. A context that has already ended yields cancelled without running
// anything; one that ends during the call turns its failure into cancelled;
// a call stopped because its generation retired past the cleanup timeout is
// tool_interrupted (DC26). A panic below is recovered into tool_failed. It is
// safe for concurrent use.
func (s *ToolSnapshot) Invoke(ctx context.Context, name string, args json.RawMessage) Result {
	return s.InvokeIn(ctx, nil, name, args)
}

// InvokeIn is Invoke serving session (nil: the one ctx carries, if any): the
// call's context carries it as WithSession would, without a context of its
// own — the call's context, which every admitted call has, carries it.
//
// The arguments are decoded once, straight into the form the tool takes
// them in (ArgsFormOf the tool's Run: a Starlark tool's are Starlark values).
func (s *ToolSnapshot) InvokeIn(ctx context.Context, session SessionScope, name string, args json.RawMessage) Result {
	i, found := s.byName[name]
	if !found {
		return s.reg.unknownTool(name)
	}
	t := &s.tools[i]
	raw := Arguments(args) // what a generation that replaces t's decodes again
	value, res, ok := decodeJSON(t.schema, raw, t.form)
	if !ok {
		return res
	}
	return s.invoke(ctx, session, t, toolArgs{raw: raw, value: value, form: t.form, schema: t.schema})
}

// Check answers what Invoke answers before anything runs: unknown_tool for a
// name the snapshot does not list, invalid_arguments for arguments that are
// not JSON or break the tool's schema. Otherwise ok is true and value holds
// the decoded arguments for InvokeChecked. Empty arguments mean {}.
func (s *ToolSnapshot) Check(name string, args json.RawMessage) (value any, res Result, ok bool) {
	i, found := s.byName[name]
	if !found {
		return nil, s.reg.unknownTool(name), false
	}
	return decodeArgs(s.tools[i].schema, args, nil)
}

// InvokeChecked is Invoke with arguments Check accepted (value must be what
// Check returned for name, unmodified).
func (s *ToolSnapshot) InvokeChecked(ctx context.Context, name string, value any) Result {
	i, found := s.byName[name]
	if !found {
		return Failure(ErrUnknownTool, fmt.Sprintf("no tool named %q in this snapshot", name))
	}
	t := &s.tools[i]
	return s.invoke(ctx, nil, t, toolArgs{value: value, goValue: value, schema: t.schema})
}

// toolArgs are a call's checked arguments: value in form, checked against
// schema, and what they were made from — the JSON text (Invoke) or the Go
// form (InvokeChecked) — to build them again for another generation.
type toolArgs struct {
	raw     json.RawMessage
	goValue any
	value   any
	form    JSONBuilder
	schema  *Schema
}

// refit makes the arguments those of a tool whose schema or form differs
// from theirs (a generation that replaced the one they were checked for).
func (a *toolArgs) refit(sch *Schema, form JSONBuilder) (Result, bool) {
	if a.raw != nil {
		v, res, ok := decodeJSON(sch, a.raw, form)
		if !ok {
			return res, false
		}
		a.value = v
	} else {
		if sch != a.schema && sch != nil {
			if err := sch.Validate(a.goValue); err != nil {
				return Failure(ErrInvalidArguments, describeViolations(err)), false
			}
		}
		a.value = a.goValue
		if form != nil {
			a.value = form.FromGo(a.goValue)
		}
	}
	a.schema, a.form = sch, form
	return Result{}, true
}

// invoke runs t, one of s's tools, with args.
func (s *ToolSnapshot) invoke(ctx context.Context, session SessionScope, t *toolEntry, args toolArgs) Result {
	if ctx.Err() != nil {
		return Cancelled(ctx)
	}
	if t.external {
		run := ctx
		if session != nil {
			run = WithSession(ctx, session)
		}
		return settle(ctx, guard(run, t.run, args.value), false)
	}
	// A gate closes between lookup and admission only when its generation
	// was just replaced or stopped; the next view says which.
	var res Result
	for range maxAdmissions {
		tool, gate, sch := s.reg.View().lookup(t)
		if tool == nil {
			return unavailable(t.Name)
		}
		if form := ArgsFormOf(tool.Run); sch != args.schema || form != args.form {
			// The new generation's parameters decide, in its tool's form.
			if res, ok := args.refit(sch, form); !ok {
				return res
			}
		}
		value := args.value
		ran, interrupted := gate.call(ctx, session, func(ctx context.Context) { res = checkOutput(tool, guard(ctx, tool.Run, value)) })
		if ran {
			if res.Err != nil && res.Err.Cause == CauseWorkerFailed && s.reg.opts.Settle != nil {
				s.reg.opts.Settle()
			}
			return settle(ctx, res, interrupted)
		}
	}
	return unavailable(t.Name)
}

// maxAdmissions bounds how often Invoke follows a generation that was
// replaced between its lookup and its admission.
const maxAdmissions = 3

// settle names why a call that ran failed when its context ended: the
// caller's context (cancelled) or the retirement of its generation past the
// cleanup timeout (tool_interrupted).
func settle(ctx context.Context, res Result, interrupted bool) Result {
	switch {
	case res.OK():
		return checked(res)
	case ctx.Err() != nil:
		return Cancelled(ctx)
	case interrupted:
		return Failure(ErrToolInterrupted, "the call was stopped because its plugin generation retired past the cleanup timeout; it may have had effects")
	}
	return res
}

// checked enforces the content limits on every result (MC1, checkContent).
func checked(r Result) Result {
	if len(r.Parts) > 0 {
		if e := checkContent(r.Parts); e != nil {
			return Result{Err: e}
		}
	}
	return r
}

func unavailable(name string) Result {
	return Failure(ErrToolUnavailable, fmt.Sprintf("tool %q is not available; its plugin stopped or no longer offers it", name))
}

// checkOutput holds a successful result of a tool that declared an
// output_schema to it: the result must be structured and valid.
func checkOutput(t *Tool, res Result) Result {
	if t.outSchema == nil || !res.OK() {
		return res
	}
	if res.Data == nil {
		return Failure(ErrInvalidOutput, "the tool declares an output_schema but returned text, not a structured value")
	}
	v, _, err := parseJSON(res.Data, goForm, nil)
	if err != nil { // a value the fast decoder declines
		dec := json.NewDecoder(bytes.NewReader(res.Data))
		dec.UseNumber()
		err = dec.Decode(&v)
	}
	if err == nil {
		err = t.outSchema.Validate(v)
	}
	if err != nil {
		return Failure(ErrInvalidOutput, "the result violates the output_schema: "+describeViolations(err))
	}
	return res
}

// guard runs fn, turning a panic into tool_failed.
func guard(ctx context.Context, fn ToolRunner, args any) (res Result) {
	defer func() {
		if p := recover(); p != nil {
			res = Failure(ErrToolFailed, "the tool failed")
		}
	}()
	return fn.Run(ctx, args)
}

// invalidUTF8At returns the offset of the first byte of data that is not
// valid UTF-8.
func invalidUTF8At(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(data)
}

// decodeArgs decodes raw JSON arguments into form (nil: the Go form) and
// validates them (DC4): with the flat check as the parser reads them when
// the schema is flat, else — and whenever the flat check cannot prove them
// valid — with the JSON Schema validator, which reads the Go form.
func decodeArgs(sch *Schema, raw json.RawMessage, form JSONBuilder) (any, Result, bool) {
	return decodeJSON(sch, Arguments(raw), form)
}

// decodeJSON is decodeArgs without the rule for missing arguments.
func decodeJSON(sch *Schema, raw []byte, form JSONBuilder) (any, Result, bool) {
	var flat *flatSchema
	build := form
	if sch != nil {
		if flat = sch.flat; flat == nil {
			build = nil
		}
	}
	if build == nil {
		build = goForm
	}
	v, proven, err := parseJSON(raw, build, flat)
	if bad, ok := err.(*argError); ok {
		return nil, Failure(ErrInvalidArguments, bad.Error()), false
	}
	if err != nil {
		// Anything else the fast decoder declines is decoded (and, if
		// invalid, explained) by encoding/json, then held to the same rules.
		build = goForm
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var slow any
		err = dec.Decode(&slow)
		v = slow
		if err == nil {
			if _, next := dec.Token(); next != io.EOF {
				err = errors.New("trailing data after the JSON value")
			}
		}
		if err == nil && !utf8.Valid(raw) {
			return nil, Failure(ErrInvalidArguments, fmt.Sprintf("invalid UTF-8 in a string at byte %d", invalidUTF8At(raw))), false
		}
		if err == nil {
			if err := vetDecoded(v, 0); err != nil {
				return nil, Failure(ErrInvalidArguments, err.Error()), false
			}
		}
	}
	if err != nil {
		return nil, Failure(ErrInvalidArguments, "arguments are not valid JSON: "+err.Error()), false
	}
	if sch != nil && !proven {
		if build != goForm {
			// The fast parser read them once, so it reads them again.
			v, _, _ = parseJSON(raw, goForm, nil)
			build = goForm
		}
		if err := sch.Validate(v); err != nil {
			return nil, Failure(ErrInvalidArguments, describeViolations(err)), false
		}
	}
	if form != nil && build != form {
		v = form.FromGo(v)
	}
	return v, Result{}, true
}

// Arguments applies the one rule for missing arguments, the same for every
// caller (Invoke, Dispatch, the MCP server, model adapters): empty, blank or
// JSON null arguments mean the empty object {}. Anything else is returned as
// it is.
func Arguments(raw json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return json.RawMessage("{}")
	}
	return raw
}

// describeViolations lists each failing instance path of a validation error
// on one line, in document order: `/: missing property "x"; /text: got
// number, want string`. The code (invalid_arguments, invalid_output) is
// the Failure's, so the message does not repeat it.
func describeViolations(err error) string {
	parts := violations(err)
	if len(parts) == 0 {
		return strings.ReplaceAll(err.Error(), "\n", "; ")
	}
	return strings.Join(parts, "; ")
}
