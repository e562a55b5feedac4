package format

import (
	"strings"
	"unicode/utf8"

	"github.com/bazelbuild/buildtools/build"
	"go.starlark.net/syntax"
)

// The style warnings are buildifier's, and buildifier's warnings walk
// buildifier's syntax tree. Rather than parse every file a second time
// with buildifier's parser (which once took half of `crystal-star check`),
// the tree go.starlark.net's compiler already built is translated node for
// node: the two trees descend from the same design, so the translation is
// shallow, and positions (with byte offsets) and comments carry over.

// treeConverter translates one file.
type treeConverter struct {
	src       []byte
	lineStart []int // byte offset of each line
	ok        bool  // false once a construct buildifier has no node for is met
}

// buildTree translates f, parsed from src with syntax.RetainComments, into
// buildifier's tree. ok is false when f uses a construct buildifier cannot
// represent (a while loop), as its parser would refuse the file.
func buildTree(f *syntax.File, src []byte) (out *build.File, ok bool) {
	c := &treeConverter{src: src, lineStart: []int{0}, ok: true}
	for i, b := range src {
		if b == '\n' {
			c.lineStart = append(c.lineStart, i+1)
		}
	}
	out = &build.File{Path: f.Path, Type: build.TypeDefault, Stmt: c.stmts(f.Stmts)}
	if cm := f.Comments(); cm != nil && len(cm.After) > 0 {
		out.Stmt = append(out.Stmt, &build.CommentBlock{Start: c.pos(cm.After[0].Start),
			Comments: build.Comments{Before: c.commentList(cm.After)}})
	}
	return out, c.ok
}

func (c *treeConverter) pos(p syntax.Position) build.Position {
	line, col := int(p.Line), int(p.Col)
	if line < 1 || line > len(c.lineStart) {
		return build.Position{Line: line, LineRune: col}
	}
	b := c.lineStart[line-1]
	for i := 1; i < col && b < len(c.src); i++ {
		_, n := utf8.DecodeRune(c.src[b:])
		b += n
	}
	return build.Position{Line: line, LineRune: col, Byte: b}
}

func (c *treeConverter) end(p syntax.Position) build.End { return build.End{Pos: c.pos(p)} }

func (c *treeConverter) commentList(cs []syntax.Comment) []build.Comment {
	out := make([]build.Comment, len(cs))
	for i, cm := range cs {
		out[i] = build.Comment{Start: c.pos(cm.Start), Token: cm.Text}
	}
	return out
}

// comments copies n's comments onto x.
func (c *treeConverter) comments(n syntax.Node, x build.Expr) build.Expr {
	if cm := n.Comments(); cm != nil && x != nil {
		dst := x.Comment()
		dst.Before = c.commentList(cm.Before)
		dst.Suffix = c.commentList(cm.Suffix)
		dst.After = c.commentList(cm.After)
	}
	return x
}

func (c *treeConverter) stmts(ss []syntax.Stmt) []build.Expr {
	out := make([]build.Expr, 0, len(ss))
	for _, s := range ss {
		if x := c.stmt(s); x != nil {
			out = append(out, c.comments(s, x))
		}
	}
	return out
}

func (c *treeConverter) stmt(s syntax.Stmt) build.Expr {
	switch s := s.(type) {
	case *syntax.ExprStmt:
		return c.expr(s.X)
	case *syntax.AssignStmt:
		return &build.AssignExpr{LHS: c.expr(s.LHS), OpPos: c.pos(s.OpPos), Op: s.Op.String(), RHS: c.expr(s.RHS)}
	case *syntax.DefStmt:
		_, colon := s.Span()
		return &build.DefStmt{
			Function:  build.Function{StartPos: c.pos(s.Def), Params: c.params(s.Params), Body: c.stmts(s.Body)},
			Name:      s.Name.Name,
			ParamsEnd: &build.End{Pos: c.pos(s.Rparen)},
			ColonPos:  &build.End{Pos: c.pos(colon)},
		}
	case *syntax.IfStmt:
		return &build.IfStmt{If: c.pos(s.If), Cond: c.expr(s.Cond), True: c.stmts(s.True),
			ElsePos: c.end(s.ElsePos), False: c.stmts(s.False)}
	case *syntax.ForStmt:
		return &build.ForStmt{For: c.pos(s.For), Vars: c.expr(s.Vars), X: c.expr(s.X), Body: c.stmts(s.Body)}
	case *syntax.ReturnStmt:
		r := &build.ReturnStmt{Return: c.pos(s.Return)}
		if s.Result != nil {
			r.Result = c.expr(s.Result)
		}
		return r
	case *syntax.BranchStmt:
		return &build.BranchStmt{Token: s.Token.String(), TokenPos: c.pos(s.TokenPos)}
	case *syntax.LoadStmt:
		load := &build.LoadStmt{Load: c.pos(s.Load), Module: c.expr(s.Module).(*build.StringExpr), Rparen: c.end(s.Rparen)}
		for i := range s.To {
			load.From = append(load.From, c.expr(s.From[i]).(*build.Ident))
			load.To = append(load.To, c.expr(s.To[i]).(*build.Ident))
		}
		return load
	}
	c.ok = false // a while loop: buildifier's parser refuses the file
	return nil
}

// params translates parameters: a default is an assignment, *args and
// **kwargs are unary expressions, as buildifier spells them.
func (c *treeConverter) params(ps []syntax.Expr) []build.Expr {
	out := make([]build.Expr, len(ps))
	for i, p := range ps {
		if b, ok := p.(*syntax.BinaryExpr); ok && b.Op == syntax.EQ {
			out[i] = &build.AssignExpr{LHS: c.expr(b.X), OpPos: c.pos(b.OpPos), Op: "=", RHS: c.expr(b.Y)}
			continue
		}
		out[i] = c.expr(p)
	}
	return out
}

func (c *treeConverter) exprs(xs []syntax.Expr) []build.Expr {
	out := make([]build.Expr, len(xs))
	for i, x := range xs {
		out[i] = c.expr(x)
	}
	return out
}

func (c *treeConverter) expr(x syntax.Expr) build.Expr {
	if x == nil {
		return nil
	}
	return c.comments(x, c.node(x))
}

func (c *treeConverter) node(x syntax.Expr) build.Expr {
	switch x := x.(type) {
	case *syntax.Ident:
		return &build.Ident{NamePos: c.pos(x.NamePos), Name: x.Name}
	case *syntax.Literal:
		if x.Token == syntax.STRING || x.Token == syntax.BYTES {
			s, _ := x.Value.(string)
			_, end := x.Span()
			raw := strings.TrimLeft(x.Raw, "bBrR")
			return &build.StringExpr{Start: c.pos(x.TokenPos), Value: s, End: c.pos(end), Token: x.Raw,
				TripleQuote: strings.HasPrefix(raw, `"""`) || strings.HasPrefix(raw, `'''`)}
		}
		return &build.LiteralExpr{Start: c.pos(x.TokenPos), Token: x.Raw}
	case *syntax.ParenExpr:
		return &build.ParenExpr{Start: c.pos(x.Lparen), X: c.expr(x.X), End: c.end(x.Rparen)}
	case *syntax.CallExpr:
		return &build.CallExpr{X: c.expr(x.Fn), ListStart: c.pos(x.Lparen), List: c.params(x.Args), End: c.end(x.Rparen)}
	case *syntax.DotExpr:
		return &build.DotExpr{X: c.expr(x.X), Dot: c.pos(x.Dot), NamePos: c.pos(x.NamePos), Name: x.Name.Name}
	case *syntax.IndexExpr:
		return &build.IndexExpr{X: c.expr(x.X), IndexStart: c.pos(x.Lbrack), Y: c.expr(x.Y), End: c.pos(x.Rbrack)}
	case *syntax.SliceExpr:
		return &build.SliceExpr{X: c.expr(x.X), SliceStart: c.pos(x.Lbrack), From: c.expr(x.Lo), To: c.expr(x.Hi),
			Step: c.expr(x.Step), End: c.pos(x.Rbrack)}
	case *syntax.UnaryExpr:
		return &build.UnaryExpr{OpStart: c.pos(x.OpPos), Op: x.Op.String(), X: c.expr(x.X)}
	case *syntax.BinaryExpr:
		return &build.BinaryExpr{X: c.expr(x.X), OpStart: c.pos(x.OpPos), Op: x.Op.String(), Y: c.expr(x.Y)}
	case *syntax.CondExpr:
		return &build.ConditionalExpr{Then: c.expr(x.True), IfStart: c.pos(x.If), Test: c.expr(x.Cond),
			ElseStart: c.pos(x.ElsePos), Else: c.expr(x.False)}
	case *syntax.ListExpr:
		return &build.ListExpr{Start: c.pos(x.Lbrack), List: c.exprs(x.List), End: c.end(x.Rbrack)}
	case *syntax.TupleExpr:
		t := &build.TupleExpr{NoBrackets: !x.Lparen.IsValid(), List: c.exprs(x.List)}
		if x.Lparen.IsValid() {
			t.Start, t.End = c.pos(x.Lparen), c.end(x.Rparen)
		} else if len(x.List) > 0 {
			start, _ := x.List[0].Span()
			_, end := x.List[len(x.List)-1].Span()
			t.Start, t.End = c.pos(start), c.end(end)
		}
		return t
	case *syntax.DictExpr:
		d := &build.DictExpr{Start: c.pos(x.Lbrace), End: c.end(x.Rbrace)}
		for _, e := range x.List {
			d.List = append(d.List, c.expr(e).(*build.KeyValueExpr))
		}
		return d
	case *syntax.DictEntry:
		return &build.KeyValueExpr{Key: c.expr(x.Key), Colon: c.pos(x.Colon), Value: c.expr(x.Value)}
	case *syntax.Comprehension:
		comp := &build.Comprehension{Curly: x.Curly, Lbrack: c.pos(x.Lbrack), Body: c.expr(x.Body), End: c.end(x.Rbrack)}
		for _, cl := range x.Clauses {
			switch cl := cl.(type) {
			case *syntax.ForClause:
				comp.Clauses = append(comp.Clauses, &build.ForClause{For: c.pos(cl.For), Vars: c.expr(cl.Vars), In: c.pos(cl.In), X: c.expr(cl.X)})
			case *syntax.IfClause:
				comp.Clauses = append(comp.Clauses, &build.IfClause{If: c.pos(cl.If), Cond: c.expr(cl.Cond)})
			}
		}
		return comp
	case *syntax.LambdaExpr:
		return &build.LambdaExpr{Function: build.Function{StartPos: c.pos(x.Lambda), Params: c.params(x.Params),
			Body: []build.Expr{c.expr(x.Body)}}}
	}
	c.ok = false
	return &build.Ident{Name: "_"}
}
