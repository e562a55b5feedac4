package starhost_test

// The dispatch path (classify → policy → approval → tool_call hooks →
// invoke → tool_result hooks → recorder → normalizer) with no plugin entries
// and with five, one per stage plus a tool_call hook, each a trivial
// Starlark callback that answers None. docs/performance.md records the
// figures and the overhead per entry.

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/crystal-star/crystal-star/starhost"
)

const fiveEntries = `
def none(ctx, x):
    return None

contribute(
    dispatch_policies = [dispatch_policy(run = none)],
    dispatch_approvals = [dispatch_approval(run = none)],
    dispatch_recorders = [dispatch_recorder(run = none)],
    dispatch_normalizers = [dispatch_normalizer(run = none)],
    hooks = [hook("tool_call", none)],
)
`

func dispatchHost(b *testing.B, source string) *starhost.Host {
	b.Helper()
	approve := func(context.Context, starhost.ApprovalRequest) starhost.Approval {
		return starhost.Approval{Approved: true}
	}
	h, _, _ := pointsHost(b, starhost.Options{Points: starhost.PointDefaults{Approve: approve}}, map[string]string{"bench": source})
	return h
}

func BenchmarkDispatch(b *testing.B) {
	call := starhost.ToolCall{ID: "call-1", Name: "lint", Arguments: json.RawMessage(`{"path": "main.go"}`)}
	invoke := func(context.Context, starhost.ToolCall) (starhost.ToolResult, bool) {
		return starhost.ToolResult{Text: "ok"}, true
	}
	for _, c := range []struct {
		name, source string
	}{
		{"entries=0", "contribute()\n"},
		{"entries=5", fiveEntries},
	} {
		b.Run(c.name, func(b *testing.B) {
			h := dispatchHost(b, c.source)
			b.ReportAllocs()
			for b.Loop() {
				if res := h.Session().Thread("thread-1").Dispatch(context.Background(), call, invoke); !res.Approved || res.Result.Text != "ok" {
					b.Fatalf("dispatch: %+v", res)
				}
			}
		})
	}
}
