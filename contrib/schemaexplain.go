package contrib

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/big"
	"net/url"
	"reflect"
	"regexp"
	"slices"
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
//
// It reads each keyword as the validator does, draft by draft (the
// dependency keywords, the array forms of "items", $ref's siblings), with
// $id, $anchor and $dynamicRef, and the annotations unevaluatedProperties
// and unevaluatedItems need; TestReview_ExplanationAgreesWithValidator and
// its fuzz target hold the two readings to one answer.
type explainer struct {
	root   any
	draft7 bool
	refs   *schemaRefs
	base   string   // the URI of the resource being explained
	scope  []string // the resources entered, outermost first ($dynamicRef)
	out    []string
	paths  []string // out[i]'s instance path, for sortViolations
}

// explainValue explains why v does not satisfy the schema doc (v's
// numbers as Go numbers, as the validator reads them).
func explainValue(doc any, draft7 bool, v any) *explainer {
	refs := indexRefs(doc, draft7)
	x := &explainer{root: doc, draft7: draft7, refs: refs, base: refs.rootBase, scope: []string{refs.rootBase}}
	x.explain(doc, v, "", 0)
	return x
}

// maxExplainDepth bounds $ref chains and nesting while explaining.
const maxExplainDepth = 64

// valid reports whether v satisfies s by the explainer's own reading (used
// for anyOf, oneOf, not, if and contains, whose branches may fail).
func (x *explainer) valid(s, v any, depth int) bool {
	sub := &explainer{root: x.root, draft7: x.draft7, refs: x.refs, base: x.base, scope: x.scope}
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

// enter makes base the resource being explained until the returned
// function runs, when it differs from the current one.
func (x *explainer) enter(base string) func() {
	if base == x.base || base == "" {
		return func() {}
	}
	oldBase, oldScope := x.base, x.scope
	x.base, x.scope = base, append(x.scope[:len(x.scope):len(x.scope)], base)
	return func() { x.base, x.scope = oldBase, oldScope }
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
	defer x.enter(x.refs.idBase(x.base, m))()
	if ref, has := m["$ref"].(string); has {
		if target, base, found := x.refs.lookup(x.base, ref); found {
			leave := x.enter(base)
			x.explain(target, v, path, depth+1)
			leave()
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
	if n, isNum := ratOf(v); isNum {
		x.numbers(m, n, path)
	}
	if str, isString := v.(string); isString {
		x.strings(m, str, path)
	}
	if ref, has := m["$dynamicRef"].(string); has {
		if target, base, found := x.dynamicTarget(ref); found {
			leave := x.enter(base)
			x.explain(target, v, path, depth+1)
			leave()
		}
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
	switch val := v.(type) {
	case map[string]any:
		x.object(m, val, path, depth)
	case []any:
		x.array(m, val, path, depth)
	}
}

// dynamicTarget resolves a $dynamicRef as the validator does: like $ref,
// unless it lands on a "$dynamicAnchor" of its name, when the outermost
// resource entered that has that dynamic anchor wins.
func (x *explainer) dynamicTarget(ref string) (any, string, bool) {
	target, base, found := x.refs.lookup(x.base, ref)
	if !found {
		return nil, "", false
	}
	abs := resolveURI(x.base, ref)
	_, name, _ := strings.Cut(abs, "#")
	if !x.refs.dynamic[abs] {
		return target, base, true
	}
	for _, s := range x.scope {
		if x.refs.dynamic[s+"#"+name] {
			return x.refs.anchors[s+"#"+name], s, true
		}
	}
	return target, base, true
}

func (x *explainer) numbers(m map[string]any, n *big.Rat, path string) {
	bound := func(k string, fails func(int) bool) {
		if b, has := number(m[k]); has && fails(n.Cmp(new(big.Rat).SetFloat64(b))) {
			x.add(path, "%s: got %s, want %v", k, ratString(n), b)
		}
	}
	bound("minimum", func(c int) bool { return c < 0 })
	bound("maximum", func(c int) bool { return c > 0 })
	bound("exclusiveMinimum", func(c int) bool { return c <= 0 })
	bound("exclusiveMaximum", func(c int) bool { return c >= 0 })
	if b, has := number(m["multipleOf"]); has && b > 0 {
		nf, _ := n.Float64()
		if _, f := math.Modf(nf / b); f != 0 {
			x.add(path, "multipleOf: got %s, want %v", ratString(n), b)
		}
	}
}

// ratString writes n as the value's JSON did: 3, 0.5.
func ratString(n *big.Rat) string {
	if n.IsInt() {
		return n.Num().String()
	}
	f, _ := n.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
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
		x.missing(path, val, req, "")
	}
	if b, has := number(m["minProperties"]); has && float64(len(val)) < b {
		x.add(path, "minProperties: got %d, want %v", len(val), b)
	}
	if b, has := number(m["maxProperties"]); has && float64(len(val)) > b {
		x.add(path, "maxProperties: got %d, want %v", len(val), b)
	}
	// The validator reads the dependency keywords of its draft only.
	deps := map[string]any{}
	if x.draft7 {
		deps, _ = m["dependencies"].(map[string]any)
	} else {
		if dep, has := m["dependentRequired"].(map[string]any); has {
			maps.Copy(deps, dep)
		}
		if dep, has := m["dependentSchemas"].(map[string]any); has {
			maps.Copy(deps, dep)
		}
	}
	for _, prop := range slices.Sorted(maps.Keys(deps)) {
		if _, present := val[prop]; !present {
			continue
		}
		if list, isList := deps[prop].([]any); isList {
			x.missing(path, val, list, prop)
		} else {
			x.explain(deps[prop], val, path, depth+1)
		}
	}
	props, _ := m["properties"].(map[string]any)
	patterns, _ := m["patternProperties"].(map[string]any)
	names := slices.Sorted(maps.Keys(val))
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
	if up, has := m["unevaluatedProperties"]; has {
		var a evaluated
		x.annotateIn(m, val, depth, &a)
		if a.allProps {
			return
		}
		var extra []string
		for _, k := range names {
			if a.props[k] {
				continue
			}
			if b, isBool := up.(bool); isBool && !b {
				extra = append(extra, k)
			} else {
				x.explain(up, val[k], path+"/"+pointerToken(k), depth+1)
			}
		}
		if len(extra) > 0 {
			x.add(path, "unevaluated properties %s not allowed", joinQuoted(extra))
		}
	}
}

// missing adds the names of list that val lacks, required outright or,
// when if is set, because property if is present.
func (x *explainer) missing(path string, val map[string]any, list []any, ifProp string) {
	var missing []string
	for _, r := range list {
		if name, isString := r.(string); isString {
			if _, present := val[name]; !present {
				missing = append(missing, name)
			}
		}
	}
	switch {
	case len(missing) == 0:
	case ifProp != "":
		x.add(path, "properties %s required, if %s exists", joinQuoted(missing), quoteName(ifProp))
	case len(missing) == 1:
		x.add(path, "missing property %s", quoteName(missing[0]))
	default:
		x.add(path, "missing properties %s", joinQuoted(missing))
	}
}

// itemSchemas returns the schemas of an array's leading items and of the
// rest, as the schema's draft reads them: prefixItems and items in 2020-12,
// items as an array and additionalItems in draft-07.
func (x *explainer) itemSchemas(m map[string]any) (prefix []any, rest any, hasRest bool) {
	if !x.draft7 {
		prefix, _ = m["prefixItems"].([]any)
		if _, isList := m["items"].([]any); !isList {
			rest, hasRest = m["items"]
		}
		return prefix, rest, hasRest
	}
	if list, isList := m["items"].([]any); isList {
		rest, hasRest = m["additionalItems"]
		return list, rest, hasRest
	}
	rest, hasRest = m["items"]
	return nil, rest, hasRest
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
	prefix, rest, hasRest := x.itemSchemas(m)
	for i, e := range val {
		at := path + "/" + strconv.Itoa(i)
		switch {
		case i < len(prefix):
			x.explain(prefix[i], e, at, depth+1)
		case hasRest:
			if b, isBool := rest.(bool); isBool && !b {
				x.add(path, "got %d items, want at most %d", len(val), len(prefix))
				hasRest = false
				continue
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
	if ui, has := m["unevaluatedItems"]; has {
		var a evaluated
		x.annotateIn(m, val, depth, &a)
		if a.allItems {
			return
		}
		for i := a.end; i < len(val); i++ {
			if a.items[i] {
				continue
			}
			if b, isBool := ui.(bool); isBool && !b {
				x.add(path, "item %d is not allowed (\"unevaluatedItems\")", i)
				return
			}
			x.explain(ui, val[i], path+"/"+strconv.Itoa(i), depth+1)
		}
	}
}

// evaluated is what unevaluatedProperties and unevaluatedItems see: the
// properties and items the schema's other keywords, and the subschemas
// that hold for the value, evaluated.
type evaluated struct {
	allProps bool
	props    map[string]bool
	allItems bool
	end      int // items below end were evaluated
	items    map[int]bool
}

// annotate adds what s evaluates of v to a (s holds for v).
func (x *explainer) annotate(s, v any, depth int, a *evaluated) {
	m, ok := s.(map[string]any)
	if !ok || depth > maxExplainDepth {
		return
	}
	defer x.enter(x.refs.idBase(x.base, m))()
	x.annotateIn(m, v, depth, a)
	switch v.(type) {
	case map[string]any:
		if _, has := m["unevaluatedProperties"]; has {
			a.allProps = true
		}
	case []any:
		if _, has := m["unevaluatedItems"]; has {
			a.allItems = true
		}
	}
}

// annotateIn adds to a what m's keywords other than the unevaluated ones
// evaluate of v.
func (x *explainer) annotateIn(m map[string]any, v any, depth int, a *evaluated) {
	holds := func(sub any) {
		if x.valid(sub, v, depth+1) {
			x.annotate(sub, v, depth+1, a)
		}
	}
	follow := func(target any, base string) {
		leave := x.enter(base)
		holds(target)
		leave()
	}
	if ref, has := m["$ref"].(string); has {
		if target, base, found := x.refs.lookup(x.base, ref); found {
			follow(target, base)
		}
		if x.draft7 {
			return
		}
	}
	if ref, has := m["$dynamicRef"].(string); has {
		if target, base, found := x.dynamicTarget(ref); found {
			follow(target, base)
		}
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		list, _ := m[k].([]any)
		for _, sub := range list {
			holds(sub)
		}
	}
	if cond, has := m["if"]; has {
		branch := "else"
		if x.valid(cond, v, depth+1) {
			x.annotate(cond, v, depth+1, a)
			branch = "then"
		}
		if sub, has := m[branch]; has {
			holds(sub)
		}
	}
	switch val := v.(type) {
	case map[string]any:
		props, _ := m["properties"].(map[string]any)
		patterns, _ := m["patternProperties"].(map[string]any)
		_, additional := m["additionalProperties"]
		for k := range val {
			_, known := props[k]
			for p := range patterns {
				if re, err := regexp.Compile(p); err == nil && re.MatchString(k) {
					known = true
				}
			}
			if known || additional {
				if a.props == nil {
					a.props = map[string]bool{}
				}
				a.props[k] = true
			}
		}
		deps := m["dependentSchemas"]
		if x.draft7 {
			deps = m["dependencies"]
		}
		if dep, isObj := deps.(map[string]any); isObj {
			for prop, sub := range dep {
				if _, present := val[prop]; present {
					if _, isList := sub.([]any); !isList {
						holds(sub)
					}
				}
			}
		}
	case []any:
		prefix, _, hasRest := x.itemSchemas(m)
		a.end = max(a.end, min(len(prefix), len(val)))
		if hasRest {
			a.allItems = true
		}
		if c, has := m["contains"]; has {
			for i, e := range val {
				if x.valid(c, e, depth+1) {
					if a.items == nil {
						a.items = map[int]bool{}
					}
					a.items[i] = true
				}
			}
		}
	}
}

// schemaRefs indexes the places a $ref can name: each resource by its URI
// ("$id" resolved against the one around it; the root's against
// schemaURL, as the validator's base), and each "$anchor" and
// "$dynamicAnchor" as URI#name.
type schemaRefs struct {
	rootBase  string
	resources map[string]any
	anchors   map[string]any
	dynamic   map[string]bool // the anchors that are dynamic
	draft7    bool
}

func indexRefs(doc any, draft7 bool) *schemaRefs {
	r := &schemaRefs{resources: map[string]any{}, anchors: map[string]any{}, dynamic: map[string]bool{}, draft7: draft7}
	r.rootBase = schemaURL
	if m, ok := doc.(map[string]any); ok {
		r.rootBase = r.idBase(schemaURL, m)
	}
	r.resources[schemaURL], r.resources[r.rootBase] = doc, doc
	r.walk(doc, schemaURL)
	return r
}

// idBase is the URI of the resource m starts, or base when m starts none.
func (r *schemaRefs) idBase(base string, m map[string]any) string {
	id, has := m["$id"].(string)
	if !has || (r.draft7 && strings.HasPrefix(id, "#")) {
		return base
	}
	abs, _, _ := strings.Cut(resolveURI(base, id), "#")
	return abs
}

// notSchemas are keywords whose values are data, not schemas.
var notSchemas = map[string]bool{"enum": true, "const": true, "default": true, "examples": true}

func (r *schemaRefs) walk(s any, base string) {
	switch c := s.(type) {
	case map[string]any:
		if id, has := c["$id"].(string); has && r.draft7 && strings.HasPrefix(id, "#") {
			r.anchors[base+id] = c
		}
		if b := r.idBase(base, c); b != base {
			base = b
			r.resources[base] = c
		}
		if a, has := c["$anchor"].(string); has {
			r.anchors[base+"#"+a] = c
		}
		if a, has := c["$dynamicAnchor"].(string); has {
			r.anchors[base+"#"+a] = c
			r.dynamic[base+"#"+a] = true
		}
		for k, e := range c {
			if !notSchemas[k] {
				r.walk(e, base)
			}
		}
	case []any:
		for _, e := range c {
			r.walk(e, base)
		}
	}
}

// lookup finds the schema ref names from base, and the URI of the
// resource it is in. A ref the index does not hold was refused or
// resolved by the validator; the explanation then skips it.
func (r *schemaRefs) lookup(base, ref string) (any, string, bool) {
	doc, frag, _ := strings.Cut(resolveURI(base, ref), "#")
	cur, ok := r.resources[doc]
	if !ok {
		return nil, "", false
	}
	if frag == "" {
		return cur, doc, true
	}
	if !strings.HasPrefix(frag, "/") {
		target, ok := r.anchors[doc+"#"+frag]
		return target, doc, ok
	}
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
			return nil, "", false
		}
	}
	return cur, doc, true
}

// resolveURI resolves ref against base; a ref that does not parse stays
// as it is.
func resolveURI(base, ref string) string {
	b, err := url.Parse(base)
	if err != nil {
		return ref
	}
	u, err := url.Parse(ref)
	if err != nil {
		return ref
	}
	return b.ResolveReference(u).String()
}

// ratOf returns a number of the value as the validator compares it: a
// big.Rat of the Go number (a float that is not finite reads as 0, as
// there).
func ratOf(v any) (*big.Rat, bool) {
	r := new(big.Rat)
	switch n := v.(type) {
	case int64:
		r.SetInt64(n)
	case int:
		r.SetInt64(int64(n))
	case float64:
		r.SetFloat64(n)
	case json.Number:
		if _, ok := r.SetString(n.String()); !ok {
			return nil, false
		}
	default:
		return nil, false
	}
	return r, true
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
		if f, isFloat := v.(float64); isFloat {
			_, frac := math.Modf(f)
			return frac == 0
		}
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
