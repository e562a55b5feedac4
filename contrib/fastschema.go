package contrib

import (
	"encoding/json"
)

// A flat schema is the shape most tool parameters have: an object whose
// properties are each a string, integer, number or boolean, some of them
// required. Validating arguments against it with the general JSON Schema
// validator was 15 % of a trivial call (issue 26, point 4); flatSchema
// accepts what it can prove valid in one look at the decoded arguments and
// leaves everything else — every failure included — to the validator, so
// what is accepted and every error message stay the validator's.
type flatSchema struct {
	props      map[string]flatType
	required   []string
	closed     bool // additionalProperties: false
	anyObjects bool // {"type": "object"} alone: every object is valid
}

type flatType uint8

const (
	flatString flatType = iota + 1
	flatInteger
	flatNumber
	flatBoolean
)

// parseFlat returns the flat form of a schema's text, or nil when it has
// any keyword beyond the few a flat schema understands (annotations
// included only when they cannot change validation).
func parseFlat(raw []byte) *flatSchema {
	var doc map[string]json.RawMessage
	if json.Unmarshal(raw, &doc) != nil {
		return nil
	}
	f := &flatSchema{props: map[string]flatType{}}
	for k, v := range doc {
		switch k {
		case "type":
			var t string
			if json.Unmarshal(v, &t) != nil || t != "object" {
				return nil
			}
		case "properties":
			var props map[string]map[string]json.RawMessage
			if json.Unmarshal(v, &props) != nil {
				return nil
			}
			for name, p := range props {
				t := flatProperty(p)
				if t == 0 {
					return nil
				}
				f.props[name] = t
			}
		case "required":
			if json.Unmarshal(v, &f.required) != nil {
				return nil
			}
		case "additionalProperties":
			var b bool
			if json.Unmarshal(v, &b) != nil {
				return nil
			}
			f.closed = !b
		case "description", "title", "$comment":
		default:
			return nil
		}
	}
	if _, typed := doc["type"]; !typed {
		return nil
	}
	f.anyObjects = len(f.props) == 0 && len(f.required) == 0 && !f.closed
	return f
}

// flatProperty returns the type of a property schema that is a primitive
// type with annotations only, or 0.
func flatProperty(p map[string]json.RawMessage) flatType {
	var t flatType
	for k, v := range p {
		switch k {
		case "type":
			var s string
			if json.Unmarshal(v, &s) != nil {
				return 0
			}
			switch s {
			case "string":
				t = flatString
			case "integer":
				t = flatInteger
			case "number":
				t = flatNumber
			case "boolean":
				t = flatBoolean
			default:
				return 0
			}
		case "description", "title", "$comment":
		default:
			return 0
		}
	}
	return t
}

// accepts reports whether v, decoded with numbers as json.Number, is
// certainly valid. False means "ask the validator", not "invalid".
func (f *flatSchema) accepts(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	if f.anyObjects {
		return true
	}
	for _, name := range f.required {
		if _, ok := m[name]; !ok {
			return false
		}
	}
	for k, e := range m {
		t, known := f.props[k]
		if !known {
			if f.closed {
				return false
			}
			continue
		}
		switch t {
		case flatString:
			_, ok = e.(string)
		case flatBoolean:
			_, ok = e.(bool)
		case flatNumber:
			_, ok = e.(json.Number)
		case flatInteger:
			ok = plainInteger(e)
		}
		if !ok {
			return false
		}
	}
	return true
}

// plainInteger reports whether e is a number written without fraction or
// exponent (1.0 and 1e2 are integers too, but the validator decides those).
func plainInteger(e any) bool {
	n, ok := e.(json.Number)
	if !ok || n == "" {
		return false
	}
	for i := 0; i < len(n); i++ {
		if c := n[i]; (c < '0' || c > '9') && !(c == '-' && i == 0) {
			return false
		}
	}
	return true
}

// validateArgs validates decoded arguments against sch: the flat check
// when it proves them valid, the JSON Schema validator otherwise.
func validateArgs(sch *Schema, v any) error {
	if sch.flat != nil && sch.flat.accepts(v) {
		return nil
	}
	return sch.Validate(v)
}
