package contrib

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
)

// checkSchemaDoc checks a schema's decoded JSON (numbers as json.Number)
// the way an author needs it checked: each keyword of JSON Schema draft
// 2020-12 (and draft-07's few others) has a value of the right kind, at
// every level. The validator (google/jsonschema-go) does not check a schema
// against the meta-schema — "minimum": "one" would only fail to unmarshal,
// with a Go type name and no place — so this is ours; docs/check.md says
// so. It returns each bad place, in a stable order.
// Keywords it does not know are annotations, as the specification says.
func checkSchemaDoc(doc any) []SchemaProblem {
	var out []SchemaProblem
	if m, ok := doc.(map[string]any); ok {
		if v, has := m["$schema"]; has {
			s, isString := v.(string)
			if !isString {
				out = append(out, SchemaProblem{"/$schema", "got " + jsonKind(v) + ", want string"})
			} else if _, known := schemaDrafts[s]; !known {
				out = append(out, SchemaProblem{"/$schema", fmt.Sprintf("%q is not supported; leave \"$schema\" out (draft 2020-12) or name draft-07", s)})
			}
		}
	}
	checkSchemaAt(doc, "", &out)
	if len(out) == 0 {
		out = endlessRefs(doc)
	}
	return out
}

// endlessRefs returns a problem for each $ref (or $dynamicRef)
// that comes back to its own schema without going into the value: "#"
// from the root, two $defs naming each other, an allOf holding "#". The
// validator would follow such a loop until its stack ran out, which ends
// the process, so the schema is refused here. A $ref under "properties"
// or "items" goes into the value, which ends, and stays allowed.
func endlessRefs(doc any) []SchemaProblem {
	draft7 := false
	if m, ok := doc.(map[string]any); ok {
		s, _ := m["$schema"].(string)
		draft7 = strings.Contains(schemaDrafts[s], "draft-07")
	}
	refs := indexRefs(doc, draft7)
	type node struct {
		m    map[string]any
		at   string
		base string
	}
	var nodes []node
	var walk func(s any, at, base string)
	walk = func(s any, at, base string) {
		switch c := s.(type) {
		case map[string]any:
			base = refs.idBase(base, c)
			nodes = append(nodes, node{c, at, base})
			for _, k := range slices.Sorted(maps.Keys(c)) {
				if !notSchemas[k] {
					walk(c[k], at+"/"+pointerToken(k), base)
				}
			}
		case []any:
			for i, e := range c {
				walk(e, fmt.Sprintf("%s/%d", at, i), base)
			}
		}
	}
	walk(doc, "", refs.rootBase)
	byMap := make(map[uintptr]node, len(nodes))
	for _, n := range nodes {
		byMap[reflect.ValueOf(n.m).Pointer()] = n
	}
	// next lists the schemas n applies to the same value, each with the
	// pointer of the keyword that leads there.
	type edge struct {
		to map[string]any
		at string
	}
	next := func(n node) []edge {
		var out []edge
		add := func(s any, at string) {
			if m, ok := s.(map[string]any); ok {
				out = append(out, edge{m, at})
			}
		}
		for _, k := range []string{"$ref", "$dynamicRef"} {
			if ref, has := n.m[k].(string); has {
				if target, _, found := refs.lookup(n.base, ref); found {
					add(target, n.at+"/"+pointerToken(k))
				}
			}
		}
		if _, has := n.m["$ref"]; has && draft7 {
			return out
		}
		for _, k := range []string{"allOf", "anyOf", "oneOf"} {
			list, _ := n.m[k].([]any)
			for i, e := range list {
				add(e, fmt.Sprintf("%s/%s/%d", n.at, k, i))
			}
		}
		for _, k := range []string{"not", "if", "then", "else"} {
			add(n.m[k], n.at+"/"+k)
		}
		deps := "dependentSchemas"
		if draft7 {
			deps = "dependencies"
		}
		if dep, ok := n.m[deps].(map[string]any); ok {
			for _, name := range slices.Sorted(maps.Keys(dep)) {
				add(dep[name], n.at+"/"+deps+"/"+pointerToken(name))
			}
		}
		return out
	}
	const (
		unseen = iota
		onPath
		done
	)
	state := map[uintptr]int{}
	var path []string // the keywords followed from the start
	var out []SchemaProblem
	var visit func(n node)
	visit = func(n node) {
		key := reflect.ValueOf(n.m).Pointer()
		state[key] = onPath
		for _, e := range next(n) {
			to := reflect.ValueOf(e.to).Pointer()
			switch state[to] {
			case onPath:
				out = append(out, loopMessage(append(path, e.at), byMap[to].at))
			case unseen:
				if t, known := byMap[to]; known {
					path = append(path, e.at)
					visit(t)
					path = path[:len(path)-1]
				}
			}
		}
		state[key] = done
	}
	for _, n := range nodes {
		if state[reflect.ValueOf(n.m).Pointer()] == unseen {
			visit(n)
		}
	}
	return out
}

// loopMessage names the last reference of a loop's keywords and the
// schema it comes back to.
func loopMessage(keywords []string, to string) SchemaProblem {
	at := keywords[len(keywords)-1]
	for i := len(keywords) - 1; i >= 0; i-- {
		if strings.HasSuffix(keywords[i], "/$ref") || strings.HasSuffix(keywords[i], "/$dynamicRef") {
			at = keywords[i]
			break
		}
	}
	if to == "" {
		to = "/"
	}
	return SchemaProblem{at, "comes back to the schema at " + to + " without going into the value; validating would never end"}
}

// schemaKeywords maps each keyword to the kind of value it takes.
var schemaKeywords = map[string]schemaKind{
	"not": kSchema, "if": kSchema, "then": kSchema, "else": kSchema,
	"additionalProperties": kSchema, "additionalItems": kSchema, "unevaluatedProperties": kSchema,
	"unevaluatedItems": kSchema, "propertyNames": kSchema, "contains": kSchema, "contentSchema": kSchema,
	"items": kSchemaOrSchemas,
	"allOf": kSchemas, "anyOf": kSchemas, "oneOf": kSchemas, "prefixItems": kSchemas,
	"properties": kSchemaMap, "patternProperties": kSchemaMap, "$defs": kSchemaMap, "definitions": kSchemaMap,
	"dependentSchemas": kSchemaMap,
	"minimum":          kNumber, "maximum": kNumber, "exclusiveMinimum": kNumber, "exclusiveMaximum": kNumber,
	"multipleOf": kPositive,
	"minLength":  kCount, "maxLength": kCount, "minItems": kCount, "maxItems": kCount,
	"minProperties": kCount, "maxProperties": kCount, "minContains": kCount, "maxContains": kCount,
	"$ref": kString, "$id": kString, "$anchor": kString, "$dynamicRef": kString, "$dynamicAnchor": kString,
	"$comment": kString, "format": kString, "title": kString, "description": kString,
	"contentEncoding": kString, "contentMediaType": kString,
	"pattern":     kPattern,
	"type":        kType,
	"required":    kStrings,
	"enum":        kArray,
	"uniqueItems": kBool, "deprecated": kBool, "readOnly": kBool, "writeOnly": kBool,
	"dependentRequired": kStringsMap,
	"dependencies":      kDependencies,
	"$vocabulary":       kObject,
}

// keywordFold maps each keyword, lowercased, to its spelling. The
// validator reads a schema with encoding/json, which matches a key to a
// keyword whatever its case ("Const" as "const"), where the specification
// leaves "Const" an annotation; a key that is a keyword in another case is
// refused, so that what is checked is what the author sees.
var keywordFold = func() map[string]string {
	m := map[string]string{}
	for k := range schemaKeywords {
		m[strings.ToLower(k)] = k
	}
	for _, k := range []string{"$schema", "const", "default", "examples"} {
		m[strings.ToLower(k)] = k
	}
	return m
}()

type schemaKind uint8

const (
	kSchema schemaKind = iota + 1
	kSchemaOrSchemas
	kSchemas
	kSchemaMap
	kNumber
	kPositive
	kCount
	kString
	kPattern
	kType
	kStrings
	kArray
	kBool
	kStringsMap
	kDependencies
	kObject
)

var jsonTypes = []string{"array", "boolean", "integer", "null", "number", "object", "string"}

func checkSchemaAt(s any, at string, out *[]SchemaProblem) {
	bad := func(key, format string, args ...any) {
		*out = append(*out, SchemaProblem{at + "/" + pointerToken(key), fmt.Sprintf(format, args...)})
	}
	m, ok := s.(map[string]any)
	if !ok {
		if _, isBool := s.(bool); !isBool {
			p := at
			if p == "" {
				p = "/"
			}
			*out = append(*out, SchemaProblem{p, "got " + jsonKind(s) + ", want boolean or object"})
		}
		return
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		kind := schemaKeywords[k]
		if want := keywordFold[strings.ToLower(k)]; want != "" && want != k {
			bad(k, "keywords are case-sensitive%s", Suggest(want))
			continue
		}
		switch kind {
		case kSchema:
			checkSchemaAt(v, at+"/"+pointerToken(k), out)
		case kSchemaOrSchemas:
			if list, isList := v.([]any); isList {
				for i, e := range list {
					checkSchemaAt(e, fmt.Sprintf("%s/%s/%d", at, k, i), out)
				}
			} else {
				checkSchemaAt(v, at+"/"+k, out)
			}
		case kSchemas:
			list, isList := v.([]any)
			switch {
			case !isList:
				bad(k, "got %s, want array", jsonKind(v))
			case len(list) == 0 && k != "prefixItems":
				bad(k, "an empty array; want at least one schema")
			}
			for i, e := range list {
				checkSchemaAt(e, fmt.Sprintf("%s/%s/%d", at, k, i), out)
			}
		case kSchemaMap, kDependencies:
			obj, isObj := v.(map[string]any)
			if !isObj {
				bad(k, "got %s, want object", jsonKind(v))
				continue
			}
			for _, name := range slices.Sorted(maps.Keys(obj)) {
				p := at + "/" + k + "/" + pointerToken(name)
				if k == "patternProperties" {
					if _, err := regexp.Compile(name); err != nil {
						*out = append(*out, SchemaProblem{p, "not a regular expression: " + err.Error()})
					}
				}
				if _, isList := obj[name].([]any); kind == kDependencies && isList {
					checkStrings(obj[name], p, out)
					continue
				}
				checkSchemaAt(obj[name], p, out)
			}
		case kNumber, kPositive, kCount:
			n, isNum := v.(json.Number)
			if !isNum {
				want := "number"
				if kind == kCount {
					want = "non-negative integer"
				}
				bad(k, "got %s, want %s", jsonKind(v), want)
				continue
			}
			f, err := n.Float64()
			switch {
			case err != nil:
				bad(k, "%s is out of range", n)
			case kind == kPositive && f <= 0:
				bad(k, "got %s, want a number above 0", n)
			case kind == kCount && (f < 0 || f != float64(int64(f)) || f > 1<<31-1):
				bad(k, "got %s, want non-negative integer", n)
			}
		case kString, kPattern:
			str, isString := v.(string)
			if !isString {
				bad(k, "got %s, want string", jsonKind(v))
			} else if kind == kPattern {
				if _, err := regexp.Compile(str); err != nil {
					bad(k, "not a regular expression: %v", err)
				}
			}
		case kType:
			switch t := v.(type) {
			case string:
				if !slices.Contains(jsonTypes, t) {
					bad(k, "%q is not a JSON Schema type (%s)", t, strings.Join(jsonTypes, ", "))
				}
			case []any:
				seen := map[string]bool{}
				for i, e := range t {
					name, isString := e.(string)
					if !isString || !slices.Contains(jsonTypes, name) || seen[name] {
						bad(k, "item %d: want one of %s, each once", i, strings.Join(jsonTypes, ", "))
						break
					}
					seen[name] = true
				}
			default:
				bad(k, "got %s, want string or array", jsonKind(v))
			}
		case kStrings:
			checkStrings(v, at+"/"+k, out)
		case kArray:
			if _, isList := v.([]any); !isList {
				bad(k, "got %s, want array", jsonKind(v))
			}
		case kBool:
			if _, isBool := v.(bool); !isBool {
				bad(k, "got %s, want boolean", jsonKind(v))
			}
		case kStringsMap:
			obj, isObj := v.(map[string]any)
			if !isObj {
				bad(k, "got %s, want object", jsonKind(v))
				continue
			}
			for name, e := range obj {
				checkStrings(e, at+"/"+k+"/"+pointerToken(name), out)
			}
		case kObject:
			if _, isObj := v.(map[string]any); !isObj {
				bad(k, "got %s, want object", jsonKind(v))
			}
		}
	}
}

func checkStrings(v any, at string, out *[]SchemaProblem) {
	list, isList := v.([]any)
	if !isList {
		*out = append(*out, SchemaProblem{at, "got " + jsonKind(v) + ", want array"})
		return
	}
	for i, e := range list {
		if _, isString := e.(string); !isString {
			*out = append(*out, SchemaProblem{fmt.Sprintf("%s/%d", at, i), "got " + jsonKind(e) + ", want string"})
		}
	}
}

// jsonKind names the JSON type of a decoded value: a number is "number"
// whether or not it is integral.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number, float64, float32, int, int64, int32, uint64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
