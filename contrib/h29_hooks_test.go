package contrib

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestH29_1_GuardHookFailingOpenIsNoted: a tool_call, approval or
// tool_result hook that answers error() is skipped and the call goes on,
// and the note says so (HookCannotDeny, an error, with the fix), at the
// error(...) call when the plugin's side knows it, else at the hook. A
// failing hook of another event keeps HookSkipped.
func TestH29_1_GuardHookFailingOpenIsNoted(t *testing.T) {
	hookPos, errPos := Pos{File: "p/plugin.star", Line: 9, Col: 11}, Pos{File: "p/plugin.star", Line: 3, Col: 21}
	failing := func(event HookEvent, err error) HookRun {
		return HookRun{Plugin: "acme.guard", Entry: &HookEntry{Event: event, Pos: hookPos,
			Run: func(context.Context, HookEvent, map[string]any) (any, error) { return nil, err }}}
	}
	denied := &ToolError{Code: "denied", Message: "no"}
	for _, tc := range []struct {
		event HookEvent
		err   error
		pos   Pos
	}{
		{HookToolCall, &PlacedError{ToolError: denied, Pos: errPos}, errPos},
		{HookApproval, denied, hookPos},
		{HookToolResult, errors.New("fail: boom"), hookPos},
	} {
		payload := map[string]any{"id": "c1", "name": "bash", "arguments": map[string]any{}, "text": "t", "risk": "low", "prompt": false}
		out, notes := runHooks(tc.event, payload, failing(tc.event, tc.err))
		if out["id"] != "c1" {
			t.Errorf("%s: payload %v; want it unchanged", tc.event, out)
		}
		if len(notes) != 1 || notes[0].Code != HookCannotDeny || notes[0].Severity != SeverityError ||
			notes[0].Pos != tc.pos || !strings.Contains(notes[0].Message, "cannot") || !strings.Contains(notes[0].Remedy, "dispatch_policy") {
			t.Errorf("%s: notes %v; want one HookCannotDeny at %v naming dispatch_policy", tc.event, notes, tc.pos)
		}
	}
	_, notes := runHooks(HookUserMessage, map[string]any{"text": "hi"}, failing(HookUserMessage, denied))
	if len(notes) != 1 || notes[0].Code != HookSkipped {
		t.Errorf("user_message: notes %v; want HookSkipped", notes)
	}
}
