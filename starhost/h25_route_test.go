package starhost_test

import (
	"context"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/starhost"
)

// TestH25_5_RouteReadsTopToBottom: the dispatch pipeline reads top to
// bottom in one place. Host.dispatch calls its steps in the order the
// package comment's route lists them (doc.go, ten lines), every step is a
// method declared in dispatch.go, and no other file of the package adds a
// step (a method of dispatch) elsewhere.
func TestH25_5_RouteReadsTopToBottom(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "dispatch.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	var route []string
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Recv == nil {
			continue
		}
		declared[fn.Name.Name] = true
		if fn.Name.Name != "dispatch" {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && (id.Name == "d" || id.Name == "h" && sel.Sel.Name == "startDispatch") {
						route = append(route, sel.Sel.Name)
					}
				}
			}
			return true
		})
	}
	want := []string{"startDispatch", "validate", "decide", "rewrite", "invoke", "record", "finish"}
	if !slices.Equal(route, want) {
		t.Fatalf("Host.dispatch calls %v; want the route %v", route, want)
	}
	for _, step := range want {
		if !declared[step] {
			t.Errorf("step %s is not declared in dispatch.go", step)
		}
	}
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for _, m := range regexp.MustCompile(`(?m)^//  ?\d+\. (\w+):`).FindAllStringSubmatch(string(doc), -1) {
		if len(documented) == 0 || documented[len(documented)-1] != m[1] {
			documented = append(documented, m[1])
		}
	}
	if !slices.Equal(documented, want) {
		t.Errorf("doc.go's route names the steps %v; want %v, the order of Host.dispatch", documented, want)
	}
	if n := strings.Count(string(doc), "\n//  "); n < 9 || n > 11 {
		t.Errorf("doc.go describes the route in %d lines; want ten", n)
	}
	// No step elsewhere: every method of dispatch is in dispatch.go.
	entries, _ := os.ReadDir(".")
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || name == "dispatch.go" {
			continue
		}
		g, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range g.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv != nil {
				if star, ok := fn.Recv.List[0].Type.(*ast.StarExpr); ok {
					if id, ok := star.X.(*ast.Ident); ok && id.Name == "dispatch" {
						t.Errorf("%s declares dispatch.%s: a step of the route outside dispatch.go", name, fn.Name.Name)
					}
				}
			}
		}
	}
}

// TestH25_5_InvokerLeavesTheCallToOnePlanning: an Invoker that leaves a
// plugin tool's call to Dispatch (ran false) has it run from the snapshot
// Dispatch checked it against — one tool planning per call, the provider
// asked once (MC2) — where an Invoker that ran the tool itself through a
// snapshot of its own made a second planning: the call's values went out
// to the embedder and back.
func TestH25_5_InvokerLeavesTheCallToOnePlanning(t *testing.T) {
	approve := func(context.Context, starhost.ApprovalRequest) starhost.Approval {
		return starhost.Approval{Approved: true}
	}
	h, _, _ := pointsHost(t, starhost.Options{Points: starhost.PointDefaults{Approve: approve}}, map[string]string{"a": mc2Source})
	h.Session().SetFacts(starhost.Facts{Mode: "work"})
	th := h.Session().Thread("t")
	call := starhost.ToolCall{ID: "1", Name: "for_work"}
	asked := 0
	leave := func(context.Context, starhost.ToolCall) (starhost.ToolResult, bool) {
		asked++
		return starhost.ToolResult{}, false
	}
	if res := th.Dispatch(bg, call, leave); res.Result.Text != "planning 1, mode work, v1" || asked != 1 {
		t.Fatalf("left to Dispatch: %+v (invoker asked %d times); want planning 1, the one Dispatch made", res.Result, asked)
	}
	if res := th.Dispatch(bg, call, nil); res.Result.Text != "planning 2, mode work, v1" {
		t.Errorf("nil invoker: %+v; want planning 2", res.Result)
	}
	// The pattern the Invoker's old contract forced: a second planning.
	own := func(ctx context.Context, c starhost.ToolCall) (starhost.ToolResult, bool) {
		return th.Tools(ctx, starhost.Work).Invoke(ctx, c.Name, c.Arguments), true
	}
	if res := th.Dispatch(bg, call, own); res.Result.Text != "planning 4, mode work, v1" {
		t.Errorf("an Invoker with its own snapshot: %+v; want planning 4 (Dispatch's 3, then its own)", res.Result)
	}
}

// TestH25_5_GlueIsItsOwnPackage: the model wire glue is starhost/toolwire's;
// the root package keeps the host and its handles.
func TestH25_5_GlueIsItsOwnPackage(t *testing.T) {
	glue := []string{"OpenAITools", "AnthropicTools", "MCPTools", "ToolCallsFromOpenAI", "ToolCallsFromAnthropic",
		"ToolMessageForOpenAI", "ToolResultForAnthropic", "ResultText", "ParseCommand", "Arguments", "RemoteMetaKey"}
	pkgs, err := parser.ParseDir(token.NewFileSet(), ".", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	for _, f := range pkgs["starhost"].Files {
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					declared[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						declared[s.Name.Name] = true
					case *ast.ValueSpec:
						for _, n := range s.Names {
							declared[n.Name] = true
						}
					}
				}
			}
		}
	}
	if len(declared) < 100 {
		t.Fatalf("read %d names of starhost; the parse missed the package", len(declared))
	}
	for _, name := range glue {
		if declared[name] {
			t.Errorf("starhost declares %s: the wire glue belongs in starhost/toolwire", name)
		}
	}
}

// TestH25_5_HostStagesTakeTheCallAsItIs: where only the host's own entries
// run a dispatch stage, its policy and recorder take the call and the
// result as they are — the arguments as the model wrote them, the data as
// the tool returned it — instead of a round trip through the JSON-like
// values plugins see (which re-encoded both, sorting their keys).
func TestH25_5_HostStagesTakeTheCallAsItIs(t *testing.T) {
	const args, data = `{"b": 1, "a": [2, 3]}`, `{"z":1,"a":2}`
	var policed, recorded, recordedData string
	lint := starhost.ExternalTool{Name: "lint", Catalogs: starhost.Work, ReadOnly: true,
		Run: func(context.Context, any) starhost.ToolResult {
			return starhost.ToolResult{Data: json.RawMessage(data)}
		}}
	h, _, _ := pointsHost(t, starhost.Options{External: []starhost.ExternalTool{lint}, Points: starhost.PointDefaults{
		Policy: func(_ context.Context, _ string, call starhost.ToolCall, _ string) string {
			policed = string(call.Arguments)
			return ""
		},
		Record: func(_ context.Context, _ string, call starhost.ToolCall, res starhost.ToolResult) {
			recorded, recordedData = string(call.Arguments), string(res.Data)
		},
	}}, map[string]string{"a": "contribute()\n"})
	res := h.Session().Thread("t").Dispatch(bg, starhost.ToolCall{ID: "1", Name: "lint", Arguments: json.RawMessage(args)}, nil)
	if !res.Result.OK() || string(res.Result.Data) != data {
		t.Fatalf("lint: %+v", res.Result)
	}
	if policed != args || recorded != args || recordedData != data {
		t.Errorf("policy saw %s, recorder %s with data %s; want %s and %s as they were", policed, recorded, recordedData, args, data)
	}
}

// TestH25_5_HostNormalizerTakesTheResultAsItIs: the host's own normalizer,
// the only entry of its stage, takes the result's data as the tool returned
// it (the round trip through plugin values sorted its keys) and its answer
// is checked as a plugin's is: a code reserved for the host that the call
// did not have fails the call with point_failed.
func TestH25_5_HostNormalizerTakesTheResultAsItIs(t *testing.T) {
	const data = `{"z":1,"a":2}`
	lint := starhost.ExternalTool{Name: "lint", Catalogs: starhost.Work, ReadOnly: true,
		Run: func(context.Context, any) starhost.ToolResult {
			return starhost.ToolResult{Data: json.RawMessage(data)}
		}}
	claim := false
	h, _, _ := pointsHost(t, starhost.Options{External: []starhost.ExternalTool{lint}, Points: starhost.PointDefaults{
		Normalize: func(_ context.Context, _ string, call starhost.ToolCall, res starhost.ToolResult) (starhost.ToolResult, error) {
			if claim {
				return starhost.ToolResult{Error: &starhost.ToolError{Code: starhost.ErrToolUnavailable, Message: "claimed"}}, nil
			}
			return starhost.ToolResult{Text: call.Name + " normalized " + string(res.Data)}, nil
		},
	}}, map[string]string{"a": "contribute()\n"})
	dispatch := func() starhost.ToolResult {
		return h.Session().Thread("t").Dispatch(bg, starhost.ToolCall{ID: "1", Name: "lint"}, nil).Result
	}
	if res := dispatch(); res.Text != "lint normalized "+data {
		t.Errorf("normalized %+v; want the data as the tool returned it", res)
	}
	claim = true
	if res := dispatch(); !errors.Is(res.Err(), starhost.ErrPointFailed) {
		t.Errorf("a normalizer claiming tool_unavailable: %+v; want point_failed", res)
	}
}
