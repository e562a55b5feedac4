package contrib

import (
	"encoding/json"
	"slices"
)

// A flat schema is the shape most tool parameters have: an object whose
// properties are each a string, integer, number or boolean, some of them
// required. Validating arguments against it with the general JSON Schema
// validator was 15 % of a trivial call (issue 26, point 4); flatSchema
// accepts what it can prove valid in one look at the arguments as the parser
// reads them (jsonParser, so whatever form they are built in) and
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

// argKind is the kind of a JSON value as written, which is all the flat
// check reads: so it takes the same decision whatever form the values are
// built in (JSONBuilder).
type argKind uint8

const (
	kindOther   argKind = iota // null, object, array
	kindString                 // a string
	kindBool                   // true or false
	kindNumber                 // a number with a fraction or an exponent
	kindInteger                // a number written without fraction or exponent
)

// kindOf returns the kind of the well-formed JSON value text.
func kindOf(text []byte) argKind {
	switch c := text[0]; {
	case c == '"':
		return kindString
	case c == 't' || c == 'f':
		return kindBool
	case c == '-' || c >= '0' && c <= '9':
		return numberKind(text)
	}
	return kindOther
}

// numberKind tells a plain integer (1.0 and 1e2 are integers too, but the
// validator decides those) from another number.
func numberKind(text []byte) argKind {
	for i, c := range text {
		if (c < '0' || c > '9') && !(c == '-' && i == 0) {
			return kindNumber
		}
	}
	return kindInteger
}

// accepts reports whether the object of members is certainly valid; a
// repeated key's every value is checked, though only the last counts. False
// means "ask the validator", not "invalid".
func (f *flatSchema) accepts(members []JSONMember) bool {
	if f.anyObjects {
		return true
	}
	for _, name := range f.required {
		if !slices.ContainsFunc(members, func(m JSONMember) bool { return m.Key == name }) {
			return false
		}
	}
	for _, m := range members {
		t, known := f.props[m.Key]
		if !known {
			if f.closed {
				return false
			}
			continue
		}
		var ok bool
		switch t {
		case flatString:
			ok = m.kind == kindString
		case flatBoolean:
			ok = m.kind == kindBool
		case flatNumber:
			ok = m.kind == kindNumber || m.kind == kindInteger
		case flatInteger:
			ok = m.kind == kindInteger
		}
		if !ok {
			return false
		}
	}
	return true
}
