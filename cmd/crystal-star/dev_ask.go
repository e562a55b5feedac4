package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/crystal-star/crystal-star/starhost"
)

// The dev console answers plugins' questions (ctx.ask) at its prompt: it
// prints the question, then asks for each field of the schema in turn
// (in the order the plugin wrote them), reading the console's next lines. An empty line takes
// the field's default or skips an optional field; /decline and /cancel
// answer so. A question asked while the console runs no line (a timer)
// is declined: nobody is looking at it.

// ask implements starhost.AskFunc for the console.
func (c *console) ask(ctx context.Context, q starhost.Question) (starhost.Answer, error) {
	c.askMu.Lock()
	defer c.askMu.Unlock()
	if !c.serving.Load() || c.lines == nil {
		return starhost.Answer{Action: starhost.AnswerDecline}, nil
	}
	c.printf("%s asks: %s", q.Plugin, q.Message)
	props, _ := q.Schema["properties"].(map[string]any)
	required := stringsOf(q.Schema["required"])
	if len(props) == 0 {
		c.printf("  answer y to accept, n to decline (or /cancel)")
	} else {
		c.printf("  an empty line takes the default or skips an optional field; /decline or /cancel stops")
	}
	content := map[string]any{}
	if len(props) == 0 {
		for {
			line, ok := c.askLine(ctx)
			if !ok || line == "/cancel" {
				return starhost.Answer{Action: starhost.AnswerCancel}, nil
			}
			if b, valid := parseBool(line); valid {
				if b {
					return starhost.Answer{Action: starhost.AnswerAccept, Content: content}, nil
				}
				return starhost.Answer{Action: starhost.AnswerDecline}, nil
			}
			c.printf("  y or n?")
		}
	}
	for _, name := range fieldOrder(q, props) {
		p, _ := props[name].(map[string]any)
		req := slices.Contains(required, name)
		for {
			c.printf("  %s", fieldPrompt(name, p, req))
			line, ok := c.askLine(ctx)
			switch {
			case !ok || line == "/cancel":
				return starhost.Answer{Action: starhost.AnswerCancel}, nil
			case line == "/decline":
				return starhost.Answer{Action: starhost.AnswerDecline}, nil
			}
			v, set, err := fieldValue(p, line, req)
			if err != nil {
				c.printf("  %s: %v", name, err)
				continue
			}
			if set {
				content[name] = v
			}
			break
		}
	}
	return starhost.Answer{Action: starhost.AnswerAccept, Content: content}, nil
}

// fieldOrder is the order to ask the fields in: the plugin's, then any
// property it did not name, sorted.
func fieldOrder(q starhost.Question, props map[string]any) []string {
	var out []string
	for _, f := range q.Fields {
		if _, ok := props[f]; ok && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	for _, n := range slices.Sorted(maps.Keys(props)) {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// askLine reads the console's next line for a question; false when the
// input ended or ctx did (ask_timeout, Ctrl-C).
func (c *console) askLine(ctx context.Context) (string, bool) {
	select {
	case line, ok := <-c.lines:
		return strings.TrimSpace(line), ok
	case <-ctx.Done():
		return "", false
	}
}

// fieldPrompt describes one field: its name, type or choices, default and
// whether it is required.
func fieldPrompt(name string, p map[string]any, required bool) string {
	var b strings.Builder
	b.WriteString(name)
	kind, _ := p["type"].(string)
	if choices := fieldChoices(p); len(choices) > 0 {
		kind = "one of " + strings.Join(choices, "|")
		if p["type"] == "array" {
			kind = "some of " + strings.Join(choices, "|") + ", comma-separated"
		}
	}
	if kind != "" {
		fmt.Fprintf(&b, " (%s)", kind)
	}
	if t, _ := p["title"].(string); t != "" {
		fmt.Fprintf(&b, " %q", t)
	}
	if d, ok := p["default"]; ok {
		raw, _ := json.Marshal(d)
		fmt.Fprintf(&b, " [default %s]", raw)
	}
	if required {
		b.WriteString(" required")
	}
	b.WriteString(":")
	return b.String()
}

// fieldChoices are an enum's values: enum, oneOf/anyOf consts, or an
// array's items' enum.
func fieldChoices(p map[string]any) []string {
	if items, ok := p["items"].(map[string]any); ok && p["type"] == "array" {
		return fieldChoices(items)
	}
	if e := stringsOf(p["enum"]); len(e) > 0 {
		return e
	}
	var out []string
	for _, key := range []string{"oneOf", "anyOf"} {
		list, _ := p[key].([]any)
		for _, o := range list {
			if m, ok := o.(map[string]any); ok {
				if s, ok := m["const"].(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// fieldValue reads a typed line: set is false for a skipped field.
func fieldValue(p map[string]any, line string, required bool) (v any, set bool, err error) {
	if line == "" {
		if d, ok := p["default"]; ok {
			return d, true, nil
		}
		if required {
			return nil, false, fmt.Errorf("required; type a value")
		}
		return nil, false, nil
	}
	choices := fieldChoices(p)
	switch p["type"] {
	case "integer":
		n, err := strconv.ParseInt(line, 10, 64)
		if err != nil {
			return nil, false, fmt.Errorf("%q is not an integer", line)
		}
		return n, true, nil
	case "number":
		f, err := strconv.ParseFloat(line, 64)
		if err != nil {
			return nil, false, fmt.Errorf("%q is not a number", line)
		}
		return f, true, nil
	case "boolean":
		b, ok := parseBool(line)
		if !ok {
			return nil, false, fmt.Errorf("%q is not y or n", line)
		}
		return b, true, nil
	case "array":
		var out []any
		for _, s := range strings.Split(line, ",") {
			s = strings.TrimSpace(s)
			if len(choices) > 0 && !slices.Contains(choices, s) {
				return nil, false, fmt.Errorf("%q is not one of %s", s, strings.Join(choices, ", "))
			}
			out = append(out, s)
		}
		return out, true, nil
	}
	if len(choices) > 0 && !slices.Contains(choices, line) {
		return nil, false, fmt.Errorf("%q is not one of %s", line, strings.Join(choices, ", "))
	}
	return line, true, nil
}

func parseBool(s string) (value, ok bool) {
	switch strings.ToLower(s) {
	case "y", "yes", "true":
		return true, true
	case "n", "no", "false":
		return false, true
	}
	return false, false
}

// stringsOf reads a JSON list of strings; anything else is empty.
func stringsOf(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
