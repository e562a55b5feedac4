package plugintest

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// LookupJSON returns the value at path in v (decoded JSON). A path is a
// sequence of steps: ".name" (or "name" first) selects an object member,
// "[N]" an array element (negative N counts from the end) and
// "[key=value]" the first array element that is an object whose member key
// renders as value. "" and "." select v itself. Example:
// `.tools[name=greet].parameters.required[0]`.
func LookupJSON(v any, path string) (any, error) {
	steps, err := parsePath(path)
	if err != nil {
		return nil, err
	}
	at := ""
	for _, s := range steps {
		next, err := s.apply(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", orRoot(at), err)
		}
		at += s.String()
		v = next
	}
	return v, nil
}

// RenderJSON renders a selected value for matching: a string as itself,
// anything else as compact JSON.
func RenderJSON(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

type pathStep struct {
	name       string // member name, or
	index      int    // [N], or
	isIndex    bool   //
	key, value string // [key=value]
}

func (s pathStep) String() string {
	switch {
	case s.isIndex:
		return fmt.Sprintf("[%d]", s.index)
	case s.key != "":
		return "[" + s.key + "=" + s.value + "]"
	}
	return "." + s.name
}

func orRoot(at string) string {
	if at == "" {
		return "."
	}
	return at
}

func parsePath(path string) ([]pathStep, error) {
	var steps []pathStep
	p := strings.TrimPrefix(path, ".")
	for p != "" {
		switch {
		case p[0] == '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return nil, fmt.Errorf("path %q: [ without ]", path)
			}
			inner := p[1:end]
			p = p[end+1:]
			if k, v, ok := strings.Cut(inner, "="); ok && k != "" {
				steps = append(steps, pathStep{key: k, value: v})
				continue
			}
			n, err := strconv.Atoi(inner)
			if err != nil {
				return nil, fmt.Errorf("path %q: [%s] is neither an index nor key=value", path, inner)
			}
			steps = append(steps, pathStep{index: n, isIndex: true})
		case p[0] == '.':
			p = p[1:]
			if p == "" || p[0] == '.' || p[0] == '[' {
				return nil, fmt.Errorf("path %q: empty member name", path)
			}
		default:
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			steps = append(steps, pathStep{name: p[:end]})
			p = p[end:]
		}
	}
	return steps, nil
}

func (s pathStep) apply(v any) (any, error) {
	if !s.isIndex && s.key == "" {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("is %s, not an object with member %q", kind(v), s.name)
		}
		m, ok := obj[s.name]
		if !ok {
			return nil, fmt.Errorf("has no member %q", s.name)
		}
		return m, nil
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("is %s, not an array", kind(v))
	}
	if s.isIndex {
		i := s.index
		if i < 0 {
			i += len(arr)
		}
		if i < 0 || i >= len(arr) {
			return nil, fmt.Errorf("index %d is out of range (%d elements)", s.index, len(arr))
		}
		return arr[i], nil
	}
	for _, e := range arr {
		if obj, ok := e.(map[string]any); ok {
			if m, ok := obj[s.key]; ok && RenderJSON(m) == s.value {
				return e, nil
			}
		}
	}
	return nil, fmt.Errorf("no element has %s=%s", s.key, s.value)
}

func kind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case nil:
		return "null"
	case bool:
		return "a boolean"
	}
	return "a number"
}
