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

	"github.com/santhosh-tekuri/jsonschema/v6"
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
}

// List returns the projections, in catalog order.
func (s *ToolSnapshot) List() []ToolInfo {
	out := make([]ToolInfo, len(s.tools))
	for i, t := range s.tools {
		out[i] = ToolInfo{Name: t.Name, Plugin: t.Plugin, Generation: t.Generation, ToolSet: t.ToolSet,
			Catalogs: t.Catalogs.String(), Description: t.Description, Parameters: t.Parameters, ReadOnly: t.ReadOnly}
	}
	return out
}

// Len returns the number of tools in the snapshot.
func (s *ToolSnapshot) Len() int { return len(s.tools) }

// Invoke calls the tool name with JSON arguments: the arguments are decoded
// and validated against the tool's schema first (invalid_arguments naming
// each failing path), then the proxy re-resolves its generation
// (tool_unavailable once revoked), the call is admitted through the
// generation's gate and run. A panic below is recovered into tool_failed.
// It is safe for concurrent use.
func (s *ToolSnapshot) Invoke(ctx context.Context, name string, args json.RawMessage) Result {
	i, ok := s.byName[name]
	if !ok {
		return Failure(ErrUnknownTool, fmt.Sprintf("no tool named %q in this snapshot", name))
	}
	t := &s.tools[i]
	value, res, ok := decodeArgs(t.schema, args)
	if !ok {
		return res
	}
	if t.external {
		return guard(ctx, t.run, value)
	}
	tool, gate := s.reg.View().lookup(t)
	if tool == nil {
		return unavailable(t.Name)
	}
	ran := gate.Do(ctx, func(ctx context.Context) { res = guard(ctx, tool.Run, value) })
	if !ran || !res.OK() && gate.Cancelled() {
		// Not admitted, or cancelled because its generation was revoked.
		return unavailable(t.Name)
	}
	return res
}

func unavailable(name string) Result {
	return Failure(ErrToolUnavailable, fmt.Sprintf("tool %q is no longer available; its plugin was reloaded or stopped", name))
}

// guard runs fn, turning a panic into tool_failed.
func guard(ctx context.Context, fn ToolFunc, args any) (res Result) {
	defer func() {
		if p := recover(); p != nil {
			res = Failure(ErrToolFailed, "the tool failed")
		}
	}()
	return fn(ctx, args)
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

// decodeArgs decodes raw JSON arguments and validates them (DC4).
func decodeArgs(sch *jsonschema.Schema, raw json.RawMessage) (any, Result, bool) {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	v, err := parseJSON(raw)
	var bad *argError
	if errors.As(err, &bad) {
		return nil, Failure(ErrInvalidArguments, bad.Error()), false
	}
	if err != nil {
		// Anything else the fast decoder declines is decoded (and, if
		// invalid, explained) by encoding/json, then held to the same rules.
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		err = dec.Decode(&v)
		if err == nil {
			if _, next := dec.Token(); next != io.EOF {
				err = errors.New("trailing data after the JSON value")
			}
		}
		if err == nil && !utf8.Valid(raw) {
			return nil, Failure(ErrInvalidArguments, fmt.Sprintf("invalid arguments: invalid UTF-8 in a string at byte %d", invalidUTF8At(raw))), false
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
	if sch == nil {
		return v, Result{}, true
	}
	if err := sch.Validate(v); err != nil {
		return nil, Failure(ErrInvalidArguments, describeViolations(err)), false
	}
	return v, Result{}, true
}

// describeViolations lists each failing instance path of a validation error
// on one line: `/text: got number, want string; /: missing property "x"`.
func describeViolations(err error) string {
	parts := violations(err)
	if len(parts) == 0 {
		return strings.ReplaceAll(err.Error(), "\n", "; ")
	}
	return "invalid arguments: " + strings.Join(parts, "; ")
}

// violations returns `path: reason` for each innermost failure of a
// validation error, or nothing when err is not one.
func violations(err error) []string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	var parts []string
	var walk func(u *jsonschema.OutputUnit)
	walk = func(u *jsonschema.OutputUnit) {
		if u.Error != nil && len(u.Errors) == 0 {
			loc := u.InstanceLocation
			if loc == "" {
				loc = "/"
			}
			parts = append(parts, loc+": "+u.Error.String())
		}
		for i := range u.Errors {
			walk(&u.Errors[i])
		}
	}
	walk(ve.DetailedOutput())
	return parts
}
