package lsp

import (
	"go/ast"
	"testing"

	"github.com/crystal-star/crystal-star/internal/testkit"
)

// TestReview_LiteralsAndParamsReadByCheck: the language server reads a
// string literal and a parameter's name with check's StringLiteral and
// ParamName, not with copies of its own: no file here compares a token
// with syntax.STRING or switches over the three shapes of a parameter.
func TestReview_LiteralsAndParamsReadByCheck(t *testing.T) {
	fset, files := testkit.GoFiles(t, ".")
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.SelectorExpr:
				if id, ok := x.X.(*ast.Ident); ok && id.Name == "syntax" && x.Sel.Name == "STRING" {
					t.Errorf("%s: reads a string literal itself; use check.StringLiteral", fset.Position(x.Pos()))
				}
			case *ast.TypeSwitchStmt:
				shapes := 0
				for _, c := range x.Body.List {
					for _, e := range c.(*ast.CaseClause).List {
						if s, ok := e.(*ast.StarExpr); ok {
							if sel, ok := s.X.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Ident" || sel.Sel.Name == "BinaryExpr" || sel.Sel.Name == "UnaryExpr") {
								shapes++
							}
						}
					}
				}
				if shapes == 3 {
					t.Errorf("%s: reads a parameter's name itself; use check.ParamName", fset.Position(x.Pos()))
				}
			}
			return true
		})
	}
}
