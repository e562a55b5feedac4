package contrib

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// An explainer says why a value the validator refused is invalid, path by
// path: `/: missing property "name"; /text: got number, want string`. The
// validator (google/jsonschema-go) decides validity and stops at its first
// failure, with the schema's path rather than the value's; the explanation
// walks the schema's JSON and the value together and names every failing
// place of the value. It runs only after a refusal, so its cost is off the
// path of valid calls; a keyword it does not cover leaves the validator's
// own words (Schema.Validate).
type explainer struct {
	root   any
	draft7 bool
	out    []string
	paths  []string // out[i]'s instance path, for sortViolations
}

// maxExplainDepth bounds $ref chains and nesting while explaining.
const maxExplainDepth = 64

// valid reports whether v satisfies s by the explainer's own reading (used
// for anyOf, oneOf, not, if and contains, whose branches may fail).
func (x *explainer) valid(s, v any, depth int) bool {
	sub := &explainer{root: x.root, draft7: x.draft7}
	sub.explain(s, v, "", depth)
	return len(sub.out) == 0
}

func (x *explainer) add(path, format string, args ...any) {
	if path == "" {
		path = "/"
	}
	x.out = append(x.out, path+": "+fmt.Sprintf(format, args...))
	x.paths = append(x.paths, path)
}

// sortViolations puts x.out in document order of the paths: "/" first,
// then each path before the paths under it, siblings by name (array
// indices by number), so that a message lists them the same way each time.
func (x *explainer) sortViolations() {
	idx := make([]int, len(x.out))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return pathLess(x.paths[idx[a]], x.paths[idx[b]]) })
	out := make([]string, len(idx))
	paths := make([]string, len(idx))
	for i, j := range idx {
		out[i], paths[i] = x.out[j], x.paths[j]
	}
	x.out, x.paths = out, paths
}

// pathLess orders two JSON pointers token by token; "/" is the root.
func pathLess(a, b string) bool {
	ta, tb := pathTokens(a), pathTokens(b)
	for i := 0; i < len(ta) && i < len(tb); i++ {
		if ta[i] == tb[i] {
			continue
		}
		na, errA := strconv.Atoi(ta[i])
		nb, errB := strconv.Atoi(tb[i])
		if errA == nil && errB == nil {
			return na < nb
		}
		return ta[i] < tb[i]
	}
	return len(ta) < len(tb)
}

func pathTokens(p string) []string {
	if p == "/" || p == "" {
		return nil
	}
	return strings.Split(strings.TrimPrefix(p, "/"), "/")
}

func (x *explainer) explain(s, v any, path string, depth int) {
	if depth > maxExplainDepth {
		return
	}
	m, ok := s.(map[string]any)
	if !ok {
		if b, isBool := s.(bool); isBool && !b {
			x.add(path, "false schema")
		}
		return
	}
	if ref, has := m["$ref"].(string); has {
		if target, found := x.resolve(ref); found {
			x.explain(target, v, path, depth+1)
		}
		if x.draft7 {
			return
		}
	}
	if t, has := m["type"]; has && !typeMatches(t, v) {
		x.add(path, "got %s, want %s", jsonKind(v), wantTypes(t))
		return
	}
	if e, has := m["enum"].([]any); has && !containsJSON(e, v) {
		x.add(path, "%s", enumMessage(e))
	}
	if c, has := m["const"]; has && !equalJSON(c, v) {
		x.add(path, "%s", enumMessage([]any{c}))
	}
	if n, isNum := number(v); isNum {
		x.numbers(m, n, path)
	}
	if str, isString := v.(string); isString {
		x.strings(m, str, path)
	}
	switch val := v.(type) {
	case map[string]any:
		x.object(m, val, path, depth)
	case []any:
		x.array(m, val, path, depth)
	}
	if list, has := m["allOf"].([]any); has {
		for _, sub := range list {
			x.explain(sub, v, path, depth+1)
		}
	}
	if list, has := m["anyOf"].([]any); has {
		matched := false
		for _, sub := range list {
			if x.valid(sub, v, depth+1) {
				matched = true
				break
			}
		}
		if !matched {
			x.add(path, "matches none of the schemas of \"anyOf\"")
		}
	}
	if list, has := m["oneOf"].([]any); has {
		var matched []string
		for i, sub := range list {
			if x.valid(sub, v, depth+1) {
				matched = append(matched, strconv.Itoa(i))
			}
		}
		switch {
		case len(matched) == 0:
			x.add(path, "matches none of the schemas of \"oneOf\"")
		case len(matched) > 1:
			x.add(path, "matches more than one schema of \"oneOf\" (%s)", strings.Join(matched, ", "))
		}
	}
	if not, has := m["not"]; has && x.valid(not, v, depth+1) {
		x.add(path, "matches the schema of \"not\"")
	}
	if cond, has := m["if"]; has {
		branch := "else"
		if x.valid(cond, v, depth+1) {
			branch = "then"
		}
		if sub, has := m[branch]; has {
			x.explain(sub, v, path, depth+1)
		}
	}
}

func (x *explainer) numbers(m map[string]any, n float64, path string) {
	bound := func(k string, fails func(float64) bool) {
		if b, has := number(m[k]); has && fails(b) {
			x.add(path, "%s: got %v, want %v", k, n, b)
		}
	}
	bound("minimum", func(b float64) bool { return n < b })
	bound("maximum", func(b float64) bool { return n > b })
	bound("exclusiveMinimum", func(b float64) bool { return n <= b })
	bound("exclusiveMaximum", func(b float64) bool { return n >= b })
	bound("multipleOf", func(b float64) bool { _, f := math.Modf(n / b); return b > 0 && f != 0 })
}

func (x *explainer) strings(m map[string]any, str string, path string) {
	n := utf8.RuneCountInString(str)
	if b, has := number(m["minLength"]); has && float64(n) < b {
		x.add(path, "minLength: got %d, want %v", n, b)
	}
	if b, has := number(m["maxLength"]); has && float64(n) > b {
		x.add(path, "maxLength: got %d, want %v", n, b)
	}
	if p, has := m["pattern"].(string); has {
		if re, err := regexp.Compile(p); err == nil && !re.MatchString(str) {
			x.add(path, "%s does not match pattern %s", quoteName(str), quoteName(p))
		}
	}
}

func (x *explainer) object(m, val map[string]any, path string, depth int) {
	if req, has := m["required"].([]any); has {
		var missing []string
		for _, r := range req {
			if name, isString := r.(string); isString {
				if _, present := val[name]; !present {
					missing = append(missing, name)
				}
			}
		}
		switch len(missing) {
		case 0:
		case 1:
			x.add(path, "missing property %s", quoteName(missing[0]))
		default:
			x.add(path, "missing properties %s", joinQuoted(missing))
		}
	}
	if b, has := number(m["minProperties"]); has && float64(len(val)) < b {
		x.add(path, "minProperties: got %d, want %v", len(val), b)
	}
	if b, has := number(m["maxProperties"]); has && float64(len(val)) > b {
		x.add(path, "maxProperties: got %d, want %v", len(val), b)
	}
	if dep, has := m["dependentRequired"].(map[string]any); has {
		for prop, list := range dep {
			if _, present := val[prop]; !present {
				continue
			}
			var missing []string
			for _, r := range asList(list) {
				if name, isString := r.(string); isString {
					if _, ok := val[name]; !ok {
						missing = append(missing, name)
					}
				}
			}
			if len(missing) > 0 {
				x.add(path, "properties %s required, if %s exists", joinQuoted(missing), quoteName(prop))
			}
		}
	}
	props, _ := m["properties"].(map[string]any)
	patterns, _ := m["patternProperties"].(map[string]any)
	names := make([]string, 0, len(val))
	for k := range val {
		names = append(names, k)
	}
	sort.Strings(names)
	var extra []string
	for _, k := range names {
		at := path + "/" + pointerToken(k)
		known := false
		if sub, has := props[k]; has {
			known = true
			x.explain(sub, val[k], at, depth+1)
		}
		for p, sub := range patterns {
			if re, err := regexp.Compile(p); err == nil && re.MatchString(k) {
				known = true
				x.explain(sub, val[k], at, depth+1)
			}
		}
		if pn, has := m["propertyNames"]; has && !x.valid(pn, k, depth+1) {
			x.add(path, "invalid property name %s", quoteName(k))
		}
		if known {
			continue
		}
		if ap, has := m["additionalProperties"]; has {
			if b, isBool := ap.(bool); isBool && !b {
				extra = append(extra, k)
			} else {
				x.explain(ap, val[k], at, depth+1)
			}
		}
	}
	if len(extra) > 0 {
		x.add(path, "additional properties %s not allowed", joinQuoted(extra))
	}
}

func (x *explainer) array(m map[string]any, val []any, path string, depth int) {
	if b, has := number(m["minItems"]); has && float64(len(val)) < b {
		x.add(path, "minItems: got %d, want %v", len(val), b)
	}
	if b, has := number(m["maxItems"]); has && float64(len(val)) > b {
		x.add(path, "maxItems: got %d, want %v", len(val), b)
	}
	if u, _ := m["uniqueItems"].(bool); u {
	dup:
		for i := range val {
			for j := i + 1; j < len(val); j++ {
				if equalJSON(val[i], val[j]) {
					x.add(path, "items at %d and %d are equal", i, j)
					break dup
				}
			}
		}
	}
	prefix, _ := m["prefixItems"].([]any)
	rest, hasRest := m["items"]
	if list, isList := rest.([]any); isList { // draft-07's array form
		prefix, hasRest = list, false
		rest, hasRest = m["additionalItems"]
	}
	for i, e := range val {
		at := path + "/" + strconv.Itoa(i)
		switch {
		case i < len(prefix):
			x.explain(prefix[i], e, at, depth+1)
		case hasRest:
			if b, isBool := rest.(bool); isBool && !b {
				x.add(path, "got %d items, want at most %d", len(val), len(prefix))
				return
			}
			x.explain(rest, e, at, depth+1)
		}
	}
	if c, has := m["contains"]; has {
		matched := 0
		for _, e := range val {
			if x.valid(c, e, depth+1) {
				matched++
			}
		}
		lo, hi := 1.0, math.Inf(1)
		if b, has := number(m["minContains"]); has {
			lo = b
		}
		if b, has := number(m["maxContains"]); has {
			hi = b
		}
		if float64(matched) < lo || float64(matched) > hi {
			x.add(path, "%d items match \"contains\", want %v to %v", matched, lo, hi)
		}
	}
}

// resolve finds the schema a $ref names inside the schema: "#", a JSON
// Pointer fragment, or an "$anchor". Anything else was refused or resolved
// by the validator; the explanation then skips it.
func (x *explainer) resolve(ref string) (any, bool) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		frag, ok = strings.CutPrefix(ref, schemaURL+"#")
		if !ok {
			return nil, false
		}
	}
	if frag == "" {
		return x.root, true
	}
	if !strings.HasPrefix(frag, "/") {
		return findAnchor(x.root, frag)
	}
	cur := x.root
	for _, tok := range strings.Split(frag[1:], "/") {
		if u, err := url.PathUnescape(tok); err == nil {
			tok = u
		}
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch c := cur.(type) {
		case map[string]any:
			cur, ok = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			ok = err == nil && i >= 0 && i < len(c)
			if ok {
				cur = c[i]
			}
		default:
			ok = false
		}
		if !ok {
			return nil, false
		}
	}
	return cur, true
}

func findAnchor(s any, name string) (any, bool) {
	switch c := s.(type) {
	case map[string]any:
		if a, _ := c["$anchor"].(string); a == name {
			return c, true
		}
		for _, e := range c {
			if found, ok := findAnchor(e, name); ok {
				return found, true
			}
		}
	case []any:
		for _, e := range c {
			if found, ok := findAnchor(e, name); ok {
				return found, true
			}
		}
	}
	return nil, false
}

// number returns a JSON number as a float64.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	}
	return 0, false
}

func typeMatches(t, v any) bool {
	if list, isList := t.([]any); isList {
		for _, e := range list {
			if typeMatches(e, v) {
				return true
			}
		}
		return false
	}
	name, _ := t.(string)
	kind := jsonKind(v)
	switch name {
	case "integer":
		n, isNum := number(v)
		return isNum && n == math.Trunc(n)
	case "number":
		return kind == "number"
	}
	return kind == name
}

func wantTypes(t any) string {
	if list, isList := t.([]any); isList {
		names := make([]string, 0, len(list))
		for _, e := range list {
			names = append(names, fmt.Sprint(e))
		}
		return strings.Join(names, " or ")
	}
	return fmt.Sprint(t)
}

func enumMessage(want []any) string {
	var parts []string
	for _, w := range want {
		switch w := w.(type) {
		case []any, map[string]any:
			return "value is not one of \"enum\""
		case string:
			parts = append(parts, quoteName(w))
		case nil:
			parts = append(parts, "null")
		default:
			parts = append(parts, fmt.Sprint(w))
		}
	}
	if len(parts) == 1 {
		return "value must be " + parts[0]
	}
	return "value must be one of " + strings.Join(parts, ", ")
}

func containsJSON(list []any, v any) bool {
	for _, e := range list {
		if equalJSON(e, v) {
			return true
		}
	}
	return false
}

// equalJSON compares two decoded JSON values, numbers by their value.
func equalJSON(a, b any) bool { return equalWith(a, b, sameLeaf) }

func sameLeaf(a, b any) bool {
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x == y
	}
	return reflect.DeepEqual(a, b)
}

func asList(v any) []any { l, _ := v.([]any); return l }

// quoteName quotes s for a message as our other messages do: "name".
func quoteName(s string) string { return strconv.Quote(s) }

func joinQuoted(names []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = quoteName(n)
	}
	return strings.Join(parts, ", ")
}
