package starhost_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/starhost"
)

// TestDC4_DispatchNullArgumentsAreTheEmptyObject: one rule for missing
// arguments through Dispatch — the approver, the host's invoker and the
// result's Call all see {}, as ToolSnapshot.Invoke does.
func TestDC4_DispatchNullArgumentsAreTheEmptyObject(t *testing.T) {
	var approved, invoked []string
	h, _, _ := pointsHost(t, starhost.Options{BuiltinTools: []string{"read"}, Points: starhost.PointDefaults{
		Approve: func(_ context.Context, req starhost.ApprovalRequest) starhost.Approval {
			approved = append(approved, string(req.Call.Arguments))
			return starhost.Approval{Approved: true}
		}}}, map[string]string{"t": `contribute(tools = [tool(name = "echo", catalogs = "work", run = lambda ctx, args: str(args))])`})
	invoke := func(ctx context.Context, call starhost.ToolCall) (starhost.ToolResult, bool) {
		invoked = append(invoked, string(call.Arguments))
		if call.Name == "echo" {
			return starhost.ToolResult{}, false // Dispatch runs it from the snapshot
		}
		return starhost.ToolResult{Text: "read"}, true
	}
	for _, raw := range []string{"", " ", "null"} {
		for _, name := range []string{"read", "echo"} {
			res := h.Session().Thread("t").Dispatch(bg, starhost.ToolCall{ID: "1", Name: name, Arguments: json.RawMessage(raw)}, invoke)
			if !res.Approved || !res.Result.OK() || string(res.Call.Arguments) != "{}" {
				t.Errorf("%s(%q): %+v", name, raw, res)
			}
		}
		if res := h.Session().Thread("t").Tools(bg, starhost.Work).Invoke(bg, "echo", json.RawMessage(raw)); res.Text != "{}" {
			t.Errorf("Invoke(echo, %q) = %+v, want {}", raw, res)
		}
	}
	for _, list := range [][]string{approved, invoked} {
		if len(list) != 6 || strings.Count(strings.Join(list, ""), "{}") != 6 {
			t.Errorf("the approver and the invoker saw %q, want {} each time", list)
		}
	}
}
