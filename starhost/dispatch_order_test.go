package starhost_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/starhost"
)

// askLog records which calls the host's policy and approver were asked about.
type askLog = testkit.Log[string]

const orderPlugin = `
def echo(ctx, args):
    return args["text"]

def spin(ctx, args):
    n = 0
    while True:
        n += 1

contribute(
    tools = [
        tool(name = "echo", catalogs = "work", run = echo,
            parameters = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
        tool(name = "spin", catalogs = "work", run = spin),
    ],
    commands = [command(name = "hello", run = lambda ctx, inv: "hello " + inv.args)],
    placeholders = [placeholder(name = "who", resolve = lambda ctx: "plugin")],
    hooks = [hook("tool_call", lambda ctx, call: None), hook("user_message", lambda ctx, m: {"text": m["text"].upper()})],
)
`

func orderHost(t *testing.T, log *askLog) *starhost.Host {
	t.Helper()
	h, _, _ := pointsHost(t, starhost.Options{Steps: 1 << 40, Points: starhost.PointDefaults{
		Policy: func(_ context.Context, _ string, call starhost.ToolCall, _ string) string {
			log.Add("policy " + call.Name)
			return ""
		},
		Approve: func(_ context.Context, req starhost.ApprovalRequest) starhost.Approval {
			log.Add("approve " + req.Call.Name)
			return starhost.Approval{Approved: true}
		},
	}}, map[string]string{"order": orderPlugin})
	return h
}

// TestHK1_DispatchAnswersCallsThatCannotRunFirst: an unknown tool, arguments
// that are not JSON and arguments that break the schema are answered before
// the policy, the approver or any hook is asked.
func TestHK1_DispatchAnswersCallsThatCannotRunFirst(t *testing.T) {
	log := &askLog{}
	h := orderHost(t, log)
	bg := context.Background()
	for _, c := range []struct {
		call starhost.ToolCall
		code starhost.Code
	}{
		{starhost.ToolCall{ID: "1", Name: "nope", Arguments: json.RawMessage(`{}`)}, starhost.ErrUnknownTool},
		{starhost.ToolCall{ID: "2", Name: "echo", Arguments: json.RawMessage(`{"text":`)}, starhost.ErrInvalidArguments},
		{starhost.ToolCall{ID: "3", Name: "echo", Arguments: json.RawMessage(`{"text": 1}`)}, starhost.ErrInvalidArguments},
	} {
		res := h.Session().Thread("t").Dispatch(bg, c.call, nil)
		if res.Approved || res.Result.Error == nil || res.Result.Error.Code != c.code {
			t.Errorf("%s %s: %+v, want %s", c.call.Name, c.call.Arguments, res.Result, c.code)
		}
	}
	if asked := log.All(); len(asked) != 0 {
		t.Fatalf("asked about calls that cannot run: %v", asked)
	}
	res := h.Session().Thread("t").Dispatch(bg, starhost.ToolCall{ID: "4", Name: "echo", Arguments: json.RawMessage(`{"text": "hi"}`)}, nil)
	if res.Result.Text != "hi" || strings.Join(log.All(), ",") != "policy echo,approve echo" {
		t.Fatalf("a valid call: %+v, asked %v", res.Result, log.All())
	}
}

// TestDC26_CancelledContextRunsNoPluginCode: with the caller's context
// already done, Dispatch, Expand, Bind, RunHook and the turn calls run no
// plugin code (and say cancelled where they return a result); a context
// that ends during a call makes it cancelled, not tool_failed.
func TestDC26_CancelledContextRunsNoPluginCode(t *testing.T) {
	log := &askLog{}
	h := orderHost(t, log)
	done, cancel := context.WithCancel(context.Background())
	cancel()
	res := h.Session().Thread("t").Dispatch(done, starhost.ToolCall{ID: "1", Name: "echo", Arguments: json.RawMessage(`{"text": "hi"}`)}, nil)
	if res.Approved || res.Result.Error == nil || res.Result.Error.Code != starhost.ErrCancelled || len(log.All()) != 0 {
		t.Errorf("Dispatch on a done context: %+v, asked %v; want cancelled, nobody asked", res.Result, log.All())
	}
	if _, ok, err := h.Session().Expand(done, "hello", "x"); ok || !errors.Is(err, starhost.ErrCancelled) || !errors.Is(err, context.Canceled) {
		t.Errorf("Expand on a done context: ok=%v err=%v, want ErrCancelled", ok, err)
	}
	if got := h.Session().Bind(done, "by {{who}}", starhost.SitePrompt); got != "by {{who}}" {
		t.Errorf("Bind on a done context resolved a plugin placeholder: %q", got)
	}
	if _, err := h.Session().RunHook(done, "user_message", map[string]any{"thread": "t", "text": "x"}); !errors.Is(err, starhost.ErrCancelled) {
		t.Errorf("RunHook on a done context: %v, want ErrCancelled", err)
	}
	if got := h.Session().Thread("t").UserMessage(done, "hi"); got != "hi" {
		t.Errorf("UserMessage on a done context ran its hook: %q", got)
	}
	if got := h.Session().Thread("t").UserMessage(context.Background(), "hi"); got != "HI" {
		t.Errorf("UserMessage on a live context: %q, want the hook's HI", got)
	}
	if text, ok, err := h.Session().Expand(context.Background(), "hello", "x"); !ok || err != nil || text != "hello x" {
		t.Errorf("Expand on a live context: %q %v %v", text, ok, err)
	}

	ctx, stop := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer stop()
	res = h.Session().Thread("t").Dispatch(ctx, starhost.ToolCall{ID: "2", Name: "spin"}, nil)
	if res.Result.Error == nil || res.Result.Error.Code != starhost.ErrCancelled {
		t.Errorf("deadline during the call: %+v, want cancelled", res.Result)
	}
}
