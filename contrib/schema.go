package contrib

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// Schema is a tool's compiled parameters (or output_schema): the JSON
// Schema (draft 2020-12, or draft-07 when it says so) resolved by
// github.com/google/jsonschema-go, which decides what is valid, with the
// schema's decoded text for explaining a refusal path by path, and its flat
// form when it has one (fastschema.go). A Schema is immutable and safe for
// concurrent validation.
type Schema struct {
	resolved *jsonschema.Resolved
	doc      any         // the schema's JSON, numbers as json.Number
	draft7   bool        // "$schema" names draft-07
	flat     *flatSchema // nil unless the schema is flat
}

// schemaBase and schemaURL name a tool's parameters. They are not a file:
// the schema is compiled from the plugin's value alone, and a $ref that is
// not inside the schema resolves below schemaBase, where refuseLoad
// refuses it.
const (
	schemaBase = "plugin:///"
	schemaURL  = schemaBase + "parameters.json"
)

// outsideRef is the refusal of a document a $ref would fetch. A schema may
// refer only inside itself: a plugin's parameters never make the host read
// a file or the network (CC1, DC23).
type outsideRef struct{ url string }

func (e *outsideRef) Error() string {
	return fmt.Sprintf("$ref to %s is outside the schema; parameters can refer only inside themselves (\"#/$defs/...\")",
		strings.TrimPrefix(e.url, schemaBase))
}

// The "$schema" values a tool schema may name. The validator knows draft
// 2020-12 and draft-07 by their exact URIs; the spellings below (with or
// without the trailing "#", http or https) mean the same two.
var schemaDrafts = map[string]string{
	"https://json-schema.org/draft/2020-12/schema":  "https://json-schema.org/draft/2020-12/schema",
	"https://json-schema.org/draft/2020-12/schema#": "https://json-schema.org/draft/2020-12/schema",
	"http://json-schema.org/draft/2020-12/schema":   "https://json-schema.org/draft/2020-12/schema",
	"http://json-schema.org/draft/2020-12/schema#":  "https://json-schema.org/draft/2020-12/schema",
	"http://json-schema.org/draft-07/schema#":       "http://json-schema.org/draft-07/schema#",
	"http://json-schema.org/draft-07/schema":        "http://json-schema.org/draft-07/schema#",
	"https://json-schema.org/draft-07/schema#":      "https://json-schema.org/draft-07/schema#",
	"https://json-schema.org/draft-07/schema":       "https://json-schema.org/draft-07/schema#",
}

// CompileSchema compiles a tool's parameters as a JSON Schema (draft
// 2020-12 unless the schema says draft-07). Empty parameters accept any
// object. References outside the schema are refused.
func CompileSchema(raw json.RawMessage) (*Schema, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage(`{"type":"object"}`)
	}
	if sch, ok := schemaCache.get(raw); ok {
		return sch, nil
	}
	sch, err := compileSchema(raw)
	if err == nil {
		schemaCache.put(raw, sch)
	}
	return sch, err
}

// schemaCache keeps compiled schemas by their exact bytes. A reload that
// did not change a tool's parameters — the usual edit — reuses them.
var schemaCache = &compiledSchemas{m: map[string]*Schema{}}

// maxCachedSchemas bounds the cache; when full it starts over.
const maxCachedSchemas = 4096

type compiledSchemas struct {
	mu sync.Mutex
	m  map[string]*Schema
}

func (c *compiledSchemas) get(raw []byte) (*Schema, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sch, ok := c.m[string(raw)]
	return sch, ok
}

func (c *compiledSchemas) put(raw []byte, sch *Schema) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxCachedSchemas {
		clear(c.m)
	}
	c.m[string(raw)] = sch
}

func compileSchema(raw json.RawMessage) (*Schema, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	// The validator does not check a schema against its meta-schema: the
	// author-facing check is ours (schemacheck.go), and it names each
	// failing place in the schema.
	if bad := checkSchemaDoc(doc); len(bad) > 0 {
		return nil, &SchemaError{Problems: bad}
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, &SchemaError{Problems: []SchemaProblem{{Reason: err.Error()}}}
	}
	draft7 := false
	if s.Schema != "" {
		s.Schema = schemaDrafts[s.Schema] // checkSchemaDoc refused any other
		draft7 = strings.Contains(s.Schema, "draft-07")
	}
	var outside *outsideRef
	r, err := s.Resolve(&jsonschema.ResolveOptions{
		BaseURI: schemaURL,
		Loader: func(u *url.URL) (*jsonschema.Schema, error) {
			outside = &outsideRef{url: u.String()}
			return nil, outside
		},
	})
	if outside != nil {
		return nil, outside
	}
	if err != nil {
		msg := strings.ReplaceAll(err.Error(), "\n", "; ")
		return nil, &SchemaError{Problems: []SchemaProblem{{Reason: strings.ReplaceAll(msg, schemaURL, "parameters")}}}
	}
	return &Schema{resolved: r, doc: doc, draft7: draft7, flat: parseFlat(raw)}, nil
}

// SchemaError is a schema CompileSchema refuses: "not a valid JSON
// Schema: " and each problem, `pointer: reason`, joined by "; ".
type SchemaError struct {
	Problems []SchemaProblem
}

// SchemaProblem is one bad place of a schema: a JSON Pointer into the
// schema ("" when the validator named no place) and what is wrong there.
// check and the running host place a ToolSchemaInvalid note by the first
// one's Pointer (Diagnostic.Pointer).
type SchemaProblem struct {
	Pointer string
	Reason  string
}

func (p SchemaProblem) String() string {
	if p.Pointer == "" {
		return p.Reason
	}
	return p.Pointer + ": " + p.Reason
}

func (e *SchemaError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	return "not a valid JSON Schema: " + strings.Join(parts, "; ")
}

// Pointer is the JSON Pointer of the first problem, or "".
func (e *SchemaError) Pointer() string {
	if len(e.Problems) == 0 {
		return ""
	}
	return e.Problems[0].Pointer
}

// Validate validates a decoded JSON value (numbers as json.Number or Go
// numbers) against the schema. Its error is a *ValidationError.
func (s *Schema) Validate(v any) error {
	v, _ = goNumbers(v)
	err := s.resolved.Validate(v)
	if err == nil {
		return nil
	}
	x := explainValue(s.doc, s.draft7, v)
	if len(x.out) == 0 {
		// A keyword the explanation does not know: the validator's own words.
		msg := err.Error()
		if i := strings.LastIndex(msg, "validating "); i >= 0 {
			if j := strings.Index(msg[i:], ": "); j >= 0 {
				msg = msg[i+j+2:]
			}
		}
		x.add("", "%s", msg)
	}
	x.sortViolations()
	return &ValidationError{Violations: x.out}
}

// ValidationError is a value the schema refuses: each violation as
// `path: reason`, the path a JSON Pointer into the value ("/" for the
// value itself).
type ValidationError struct {
	Violations []string
}

func (e *ValidationError) Error() string { return strings.Join(e.Violations, "; ") }

// goNumbers returns v with each json.Number as an int64 (or a float64 when
// it is not one), which the validator reads as a number, and whether it
// changed anything; containers are copied only when they hold a number.
func goNumbers(v any) (any, bool) {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i, true
		}
		f, _ := strconv.ParseFloat(string(x), 64)
		return f, true
	case map[string]any:
		var out map[string]any
		for k, e := range x {
			g, changed := goNumbers(e)
			if !changed {
				continue
			}
			if out == nil {
				out = make(map[string]any, len(x))
				for k2, e2 := range x {
					out[k2] = e2
				}
			}
			out[k] = g
		}
		if out != nil {
			return out, true
		}
	case []any:
		var out []any
		for i, e := range x {
			g, changed := goNumbers(e)
			if !changed {
				continue
			}
			if out == nil {
				out = append([]any(nil), x...)
			}
			out[i] = g
		}
		if out != nil {
			return out, true
		}
	}
	return v, false
}

// violations returns `path: reason` for each failure of a validation
// error, or nothing when err is not one.
func violations(err error) []string {
	var ve *ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	return ve.Violations
}
