package builtins

import (
	"io/fs"
	"strconv"
	"strings"

	"go.starlark.net/syntax"

	"github.com/crystal-star/crystal-star/contrib"
)

// SchemaErrorPos is where a ToolSchemaInvalid note belongs: the value of
// the deepest key of pointer (the note's Diagnostic.Pointer, into the
// tool's parameters) that the parameters hold, when the parameters (of the
// tool(...) call whose parenthesis is at call, in f) are a dict literal.
// check and the running host both place the note with it, so that they
// report the same position (docs/check.md).
func SchemaErrorPos(f *syntax.File, call contrib.Pos, pointer string) (contrib.Pos, bool) {
	if pointer == "" || f == nil {
		return contrib.Pos{}, false
	}
	params := parametersAt(f, call)
	if params == nil {
		return contrib.Pos{}, false
	}
	return posOf(pointerPos(params, pointer)), true
}

// placeSchemaNote moves a ToolSchemaInvalid note of the bundle from its
// tool(...) call to the property its message names, as check does. The
// file is parsed again: this runs only for a tool left out.
func (inst *instance) placeSchemaNote(d *contrib.Diagnostic) {
	if d.Code != contrib.ToolSchemaInvalid || !d.Pos.IsValid() || d.Pointer == "" {
		return
	}
	rel := d.Pos.File
	if root := inst.req.SourceRoot; root != "" {
		if !strings.HasPrefix(rel, root+"/") {
			return
		}
		rel = strings.TrimPrefix(rel, root+"/")
	}
	if inst.req.Bundle == nil {
		return
	}
	src, err := fs.ReadFile(inst.req.Bundle, rel)
	if err != nil {
		return
	}
	f, err := Dialect.Parse(d.Pos.File, src, 0)
	if err != nil {
		return
	}
	if pos, ok := SchemaErrorPos(f, d.Pos, d.Pointer); ok {
		d.Pos = pos
	}
}

// parametersAt returns the parameters argument of the tool(...) call
// whose parenthesis is at pos, or nil.
func parametersAt(f *syntax.File, pos contrib.Pos) syntax.Expr {
	sig := LookupSignature("tool")
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
func pointerPos(v syntax.Expr, pointer string) syntax.Position {
	start, _ := v.Span()
	for _, seg := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		seg = strings.NewReplacer("~1", "/", "~0", "~").Replace(seg)
		next := literalMember(v, seg)
		if next == nil {
			break
		}
		v = next
		start, _ = v.Span()
	}
	return start
}

// literalMember returns the value of key seg in a dict literal, or of index seg
// in a list literal, or nil.
func literalMember(v syntax.Expr, seg string) syntax.Expr {
	switch x := v.(type) {
	case *syntax.ParenExpr:
		return literalMember(x.X, seg)
	case *syntax.DictExpr:
		for _, e := range x.List {
			entry := e.(*syntax.DictEntry)
			if l, ok := entry.Key.(*syntax.Literal); ok && l.Token == syntax.STRING && l.Value == seg {
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
