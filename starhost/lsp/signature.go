package lsp

import (
	"regexp"
	"strings"

	"go.starlark.net/syntax"

	"github.com/crystal-star/crystal-star/builtins"
)

// Signature is the signature help of a call: its label, the label's
// parameters by offset, their docs, and the parameter at the cursor.
type Signature struct {
	Label  string
	Doc    string
	Params []SignatureParam
	Active int // index into Params; -1 when the cursor is on none
}

// SignatureParam is one parameter of a Signature: Label[Start:End].
type SignatureParam struct {
	Start, End int
	Doc        string
}

var keywordArg = regexp.MustCompile(`^\s*(\w+)\s*=[^=]`)

// signature returns the signature help of the call around the cursor of
// rel: the author's own function (top-level, or loaded) or a predeclared
// constructor; ok is false elsewhere.
func (ix *index) signature(rel, text string, line, char int) (Signature, bool) {
	c := cursorAt(text, line, char)
	callee, open, _ := c.callOpen()
	if open < 0 || !isIdent(callee) {
		return Signature{}, false
	}
	index, keyword := argumentAt(c.text[open+1 : c.offset])
	var names []string
	var sig Signature
	if own, ok := ix.ownSignature(rel, callee); ok {
		sig = own
		for _, p := range sig.Params {
			names = append(names, paramName(sig.Label[p.Start:p.End]))
		}
	} else if s := builtins.LookupSignature(callee); s != nil {
		label := s.Name + "("
		for i, p := range s.Params {
			if i > 0 {
				label += ", "
			}
			doc := p.Doc + valuesDoc(&p)
			if p.Required {
				doc = "(required) " + doc
			}
			sig.Params = append(sig.Params, SignatureParam{Start: len(label), End: len(label) + len(p.Name), Doc: doc})
			label += p.Name
			names = append(names, p.Name)
		}
		sig.Label, sig.Doc = label+")", s.Doc
	} else {
		return Signature{}, false
	}
	sig.Active = -1
	if keyword != "" {
		for i, n := range names {
			if n == keyword {
				sig.Active = i
			}
		}
	} else if index < len(sig.Params) {
		sig.Active = index
	}
	return sig, true
}

// paramName is the name of a parameter as written: "x", "x = 1", "*args".
func paramName(p string) string {
	p = strings.TrimLeft(p, "*")
	if i := strings.IndexAny(p, " ="); i >= 0 {
		return p[:i]
	}
	return p
}

// argumentAt returns which argument of a call the cursor is in, given the
// text between "(" and the cursor: its index, and its keyword when it is
// written keyword = value.
func argumentAt(args string) (int, string) {
	depth, index, start := 0, 0, 0
	var quote byte
	for i := 0; i < len(args); i++ {
		ch := args[i]
		switch {
		case quote != 0:
			if ch == '\\' {
				i++
			} else if ch == quote {
				quote = 0
			}
		case ch == '"' || ch == '\'':
			quote = ch
		case ch == '(' || ch == '[' || ch == '{':
			depth++
		case ch == ')' || ch == ']' || ch == '}':
			depth--
		case ch == ',' && depth == 0:
			index, start = index+1, i+1
		}
	}
	if m := keywordArg.FindStringSubmatch(args[start:] + " "); m != nil {
		return index, m[1]
	}
	return index, ""
}

// ownSignature is the signature of the author's function name as seen
// from rel (a top-level def or NAME = lambda of the file, or one it
// loads).
func (ix *index) ownSignature(rel, name string) (Signature, bool) {
	found := false
	for _, n := range ix.topNames(rel) {
		found = found || n == name
	}
	if !found {
		return Signature{}, false
	}
	sym := ix.follow(rel, name)
	var params []syntax.Expr
	var doc string
	switch st := ix.definition(sym.file, sym.name).(type) {
	case *syntax.DefStmt:
		params, doc = st.Params, docstring(st.Body)
	case *syntax.AssignStmt:
		l, ok := st.RHS.(*syntax.LambdaExpr)
		if !ok {
			return Signature{}, false
		}
		params = l.Params
	default:
		return Signature{}, false
	}
	sig := Signature{Doc: doc}
	label := name + "("
	for i, p := range params {
		if i > 0 {
			label += ", "
		}
		text := ix.source(sym.file, p)
		sig.Params = append(sig.Params, SignatureParam{Start: len(label), End: len(label) + len(text)})
		label += text
	}
	sig.Label = label + ")"
	return sig, true
}
