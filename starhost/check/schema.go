package check

import (
	"regexp"
	"strconv"
	"strings"

	"go.starlark.net/syntax"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
)

// schemaPointer finds the JSON pointer a schema error names first, as in
// "not a valid JSON Schema: /properties/count/type: got string, want array".
// toolSchemaInvalid is contrib's code of an invalid tool schema (unexported there).
const toolSchemaInvalid = contrib.Code("ToolSchemaInvalid")

var schemaPointer = regexp.MustCompile(`JSON Schema: (/[^:;\s]*)`)

// placeSchemaErrors moves each ToolSchemaInvalid of p from its tool(...)
// call to the property the error names, when the tool's parameters are a
// dict literal: the value of the deepest key of the pointer that the
// literal holds (issue 29 point 2). It runs once p's trees are final.
func (ck *runner) placeSchemaErrors(p *checkPlugin) {
	for i, d := range ck.diags {
		if d.Code != toolSchemaInvalid || d.Plugin != p.cand.ID() {
			continue
		}
		m := schemaPointer.FindStringSubmatch(d.Message)
		if m == nil {
			continue
		}
		params := ck.parametersAt(p, d.Pos)
		if params == nil {
			continue
		}
		if pos, ok := pointerPos(params, m[1]); ok {
			ck.diags[i].Pos = posOf(pos)
		}
	}
}

// parametersAt returns the parameters argument of the tool(...) call
// whose parenthesis is at pos, or nil.
func (ck *runner) parametersAt(p *checkPlugin, pos contrib.Pos) syntax.Expr {
	f := p.parsed[strings.TrimPrefix(pos.File, p.cand.Display+"/")]
	if f == nil {
		return nil
	}
	sig := builtins.LookupSignature("tool")
	var found syntax.Expr
	syntax.Walk(f, func(n syntax.Node) bool {
		x, ok := n.(*syntax.CallExpr)
		if !ok || found != nil {
			return found == nil
		}
		if int(x.Lparen.Line) != pos.Line || int(x.Lparen.Col) != pos.Col {
			return true
		}
		for i, arg := range x.Args {
			if b, ok := arg.(*syntax.BinaryExpr); ok && b.Op == syntax.EQ {
				if kw, ok := b.X.(*syntax.Ident); ok && kw.Name == "parameters" {
					found = b.Y
				}
			} else if sig != nil && i < len(sig.Params) && sig.Params[i].Name == "parameters" {
				found = arg
			}
		}
		return false
	})
	return found
}

// pointerPos follows a JSON pointer through dict and list literals and
// returns the start of the deepest value it reaches.
func pointerPos(v syntax.Expr, pointer string) (syntax.Position, bool) {
	start, _ := v.Span()
	for _, seg := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		seg = strings.NewReplacer("~1", "/", "~0", "~").Replace(seg)
		next := member(v, seg)
		if next == nil {
			break
		}
		v = next
		start, _ = v.Span()
	}
	return start, true
}

// member returns the value of key seg in a dict literal, or of index seg
// in a list literal, or nil.
func member(v syntax.Expr, seg string) syntax.Expr {
	switch x := v.(type) {
	case *syntax.ParenExpr:
		return member(x.X, seg)
	case *syntax.DictExpr:
		for _, e := range x.List {
			entry := e.(*syntax.DictEntry)
			if k, ok := stringLiteral(entry.Key); ok && k == seg {
				return entry.Value
			}
		}
	case *syntax.ListExpr:
		if i, err := strconv.Atoi(seg); err == nil && i >= 0 && i < len(x.List) {
			return x.List[i]
		}
	}
	return nil
}
