package starhost_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"reflect"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/starhost"
)

// internalPackages are the packages whose types must not show in
// starhost's exported API (issue 12: one import).
var internalPackages = map[string]bool{"contrib": true, "builtins": true, "models": true,
	"lifecycle": true, "statusline": true, "trust": true}

// The model, session-fact and provider types are starhost's own: defined
// here (no alias), with no internal package's type in an exported field,
// method or signature, so an embedder's ModelProvider, ModelAdapter and
// ModelClient are written against starhost alone.
func TestModelSurfaceIsStarhostOwn(t *testing.T) {
	own := map[string]bool{}
	for _, n := range []string{"Message", "ModelClient", "ModelReply", "ModelRequest", "ModelRole",
		"ModelAdapter", "AdapterConfig", "ModelError", "ModelFacts", "ReviewFacts", "Facts", "Clock",
		"ModelProvider", "ClientSpec", "ModelCall", "ManualClock", "Session", "ModelItem", "OutboundCall"} {
		own[n] = true
	}
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, f := range pkgs["starhost"].Files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					ts, ok := sp.(*ast.TypeSpec)
					if !ok || !own[ts.Name.Name] {
						continue
					}
					found[ts.Name.Name] = true
					if ts.Assign.IsValid() {
						t.Errorf("%s: %s is an alias", fset.Position(ts.Pos()), ts.Name.Name)
					}
					checkExported(t, fset, ts.Name.Name, ts.Type)
				}
			case *ast.FuncDecl:
				if d.Recv == nil || !d.Name.IsExported() {
					continue
				}
				if recv := recvName(d.Recv.List[0].Type); own[recv] {
					checkExported(t, fset, recv+"."+d.Name.Name, d.Type)
				}
			}
		}
	}
	for n := range own {
		if !found[n] {
			t.Errorf("starhost defines no type %s", n)
		}
	}
}

// checkExported reports every reference to an internal package in the
// exported parts of expr (unexported struct fields are skipped).
func checkExported(t *testing.T, fset *token.FileSet, where string, expr ast.Expr) {
	t.Helper()
	ast.Inspect(expr, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Field:
			if len(n.Names) > 0 && !n.Names[0].IsExported() {
				if _, inStruct := expr.(*ast.StructType); inStruct {
					return false
				}
			}
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && internalPackages[id.Name] {
				t.Errorf("%s: %s shows %s.%s", fset.Position(n.Pos()), where, id.Name, n.Sel.Name)
			}
		}
		return true
	})
}

func recvName(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// The plumbing builtins calls (model clients and epochs, the timer clock,
// ctx.env) is not on Host, and the session facts have one home: Session.
func TestHostLeavesPlumbingAndSessionToSession(t *testing.T) {
	host := reflect.TypeOf(&starhost.Host{})
	for _, m := range []string{"ModelEpoch", "ModelClient", "TimerClock", "Environment", "SetSession",
		"Review", "SetReview", "SelectModel", "SelectReviewModel", "SetThinking", "SetReviewThinking",
		"SetServiceTier", "SetSpeed", "SaveSession", "Facts", "SetFacts", "Providers", "Connect",
		"SessionStarted", "SessionEnded"} {
		if _, ok := host.MethodByName(m); ok {
			t.Errorf("Host still has %s", m)
		}
	}
	session := reflect.TypeOf(&starhost.Session{})
	for _, m := range []string{"Model", "SetModel", "Review", "SetReview", "SelectModel", "SelectReviewModel",
		"SetThinking", "SetReviewThinking", "SetServiceTier", "SetSpeed", "Save", "Facts", "SetFacts",
		"Connect", "Start", "End"} {
		if _, ok := session.MethodByName(m); !ok {
			t.Errorf("Session has no %s", m)
		}
	}
}
