package builtins

import (
	"path"
	"slices"
	"strings"

	"go.starlark.net/syntax"
)

// DeclaredToolNames returns the tool names a bundle's Starlark files spell
// out as literals — tool(name = "x") or tool("x") — sorted, without
// running anything. A file that does not parse contributes nothing. The
// host uses it for a plugin that faulted before it ever published: a call
// naming one of these tools hears why (tool_unavailable) instead of
// unknown_tool. files maps bundle-relative paths to contents.
func DeclaredToolNames(files map[string][]byte) []string {
	var names []string
	for name, data := range files {
		if path.Ext(name) != ".star" {
			continue
		}
		f, err := Dialect.Parse(name, data, 0)
		if err != nil {
			continue
		}
		syntax.Walk(f, func(n syntax.Node) bool {
			if call, ok := n.(*syntax.CallExpr); ok {
				if s, ok := literalToolName(call); ok {
					names = append(names, s)
				}
			}
			return true
		})
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// literalToolName returns the literal name of a tool(...) call.
func literalToolName(call *syntax.CallExpr) (string, bool) {
	if fn, ok := call.Fn.(*syntax.Ident); !ok || fn.Name != "tool" {
		return "", false
	}
	for i, arg := range call.Args {
		v := arg
		if b, ok := arg.(*syntax.BinaryExpr); ok && b.Op == syntax.EQ {
			if k, ok := b.X.(*syntax.Ident); !ok || k.Name != "name" {
				continue
			}
			v = b.Y
		} else if i != 0 {
			continue
		}
		if lit, ok := v.(*syntax.Literal); ok && lit.Token == syntax.STRING {
			if s, ok := lit.Value.(string); ok && strings.TrimSpace(s) != "" {
				return s, true
			}
		}
	}
	return "", false
}
