package contrib

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/internal/testkit"
)

// hookReturning is a hook of plugin that returns out (and records what it
// saw in seen).
func hookReturning(plugin string, event HookEvent, seen *[]map[string]any, out func(map[string]any) any) HookRun {
	raw := LookupHook(event).Raw
	return HookRun{Plugin: plugin, Entry: &HookEntry{Event: event, Raw: raw, Run: func(_ context.Context, _ HookEvent, p map[string]any) (any, error) {
		if seen != nil {
			*seen = append(*seen, p)
		}
		return out(p), nil
	}}}
}

func constant(v any) func(map[string]any) any { return func(map[string]any) any { return v } }

// runHooks runs runs on payload and returns the result and the notes.
func runHooks(event HookEvent, payload map[string]any, runs ...HookRun) (map[string]any, []Diagnostic) {
	var notes testkit.Log[Diagnostic]
	out := RunHooks(context.Background(), runs, event, payload, notes.Add)
	return out, notes.All()
}

func TestHK1_HooksChainInLoadOrder(t *testing.T) {
	var seen []map[string]any
	appendText := func(s string) func(map[string]any) any {
		return func(p map[string]any) any { return map[string]any{"text": p["text"].(string) + s} }
	}
	out, notes := runHooks(HookUserMessage, map[string]any{"text": "fix it"},
		hookReturning("acme.a", HookUserMessage, &seen, appendText(" (a)")),
		hookReturning("acme.b", HookUserMessage, &seen, appendText(" (b)")))
	if out["text"] != "fix it (a) (b)" || len(notes) != 0 {
		t.Errorf("result %v, notes %v", out, notes)
	}
	if seen[1]["text"] != "fix it (a)" {
		t.Errorf("the second hook saw %v; want the first one's replacement", seen[1])
	}
}

func TestHK1_FailingHookIsSkippedWithANote(t *testing.T) {
	failing := HookRun{Plugin: "acme.a", Entry: &HookEntry{Event: HookUserMessage, Run: func(context.Context, HookEvent, map[string]any) (any, error) {
		return nil, errors.New("boom")
	}}}
	out, notes := runHooks(HookUserMessage, map[string]any{"text": "ok"}, failing,
		hookReturning("acme.b", HookUserMessage, nil, constant(map[string]any{"text": "ok!"})))
	if out["text"] != "ok!" {
		t.Errorf("result %v; the next hook must still run", out)
	}
	if len(notes) != 1 || notes[0].Code != HookSkipped || notes[0].Plugin != "acme.a" || !strings.Contains(notes[0].Message, "boom") {
		t.Errorf("notes %v", notes)
	}
}

// TestHK2_EventPowers checks, for each event, one replacement within its
// powers and the ones beyond them (skipped with a note, the payload kept).
func TestHK2_EventPowers(t *testing.T) {
	items := func(texts ...string) []any {
		var out []any
		roles := []string{"system", "user", "assistant"}
		for i, s := range texts {
			out = append(out, map[string]any{"id": roles[i], "role": roles[i], "text": s})
		}
		return out
	}
	cases := []struct {
		event   HookEvent
		payload map[string]any
		ok      []map[string]any
		refused []map[string]any
	}{
		{HookSessionStarted, map[string]any{"workspace": "/w", "session_id": "s", "approval_mode": "default"},
			nil, []map[string]any{{"approval_mode": "auto"}, {"workspace": "/x"}}},
		{HookPrompt, map[string]any{"prompt": "Be careful."},
			[]map[string]any{{"prompt": "Be careful. Also terse."}},
			[]map[string]any{{"prompt": "Be reckless."}, {"prompt": 3.0}}},
		{HookUserMessage, map[string]any{"text": "hi"},
			[]map[string]any{{"text": "hello"}},
			[]map[string]any{{"text": "  \n"}, {"text": nil}}},
		{HookTurnFinished, map[string]any{"text": "hi", "mode": "work", "stop_reason": "end_turn"},
			nil, []map[string]any{{"stop_reason": "tool_use"}}},
		{HookTransformModel, map[string]any{"purpose": "turn", "items": items("sys", "u", "a")},
			[]map[string]any{{"items": items("sys", "u!", "a!")}},
			[]map[string]any{{"items": items("SYS", "u", "a")}, {"items": items("sys", "u")},
				{"items": []any{items("x", "u", "a")[1], items("sys", "x", "a")[0], items("x", "y", "a")[2]}}}},
		{HookModelResponse, map[string]any{"purpose": "turn", "finish_reason": "stop"},
			nil, []map[string]any{{"finish_reason": "length"}}},
		{HookToolCall, map[string]any{"id": "c1", "name": "read", "arguments": map[string]any{"path": "a"}},
			[]map[string]any{{"name": "cat"}, {"arguments": map[string]any{"path": "b"}}},
			[]map[string]any{{"id": "c2"}, {"skip": true}, {"name": ""}, {"arguments": "path=b"}}},
		{HookToolResult, map[string]any{"id": "c1", "name": "read", "text": "x"},
			[]map[string]any{{"text": "y"}}, []map[string]any{{"name": "cat"}}},
		{HookApproval, map[string]any{"id": "c1", "name": "bash", "risk": "medium", "prompt": true},
			[]map[string]any{{"risk": "high"}, {"risk": "medium", "prompt": true}},
			[]map[string]any{{"risk": "low"}, {"prompt": false}, {"risk": "extreme"}}},
		{HookCompaction, map[string]any{"prompt": "Summarize.", "body": "old"},
			[]map[string]any{{"prompt": "Summarize. Keep file names.", "body": "old\nmore"}},
			[]map[string]any{{"body": "new"}}},
	}
	for _, c := range cases {
		t.Run(string(c.event), func(t *testing.T) {
			for _, repl := range c.ok {
				out, notes := runHooks(c.event, c.payload, hookReturning("acme.a", c.event, nil, constant(repl)))
				for k, v := range repl {
					if !jsonEqual(out[k], v) || len(notes) != 0 {
						t.Errorf("%v was refused: %v", repl, notes)
					}
				}
			}
			for _, repl := range c.refused {
				out, notes := runHooks(c.event, c.payload, hookReturning("acme.a", c.event, nil, constant(repl)))
				if !jsonEqual(out, c.payload) || len(notes) != 1 || notes[0].Code != HookSkipped {
					t.Errorf("%v was not refused: %v, notes %v", repl, out, notes)
				}
			}
		})
	}
}

func TestHK2_EveryEventHasARow(t *testing.T) {
	want := []string{"session_started", "session_ended", "prompt", "user_message", "turn_started", "turn_finished",
		"transform_model", "model_response", "tool_call", "tool_result", "approval", "compaction"}
	if got := HookEventNames(false); !slices.Equal(got, want) {
		t.Errorf("hook events %v", got)
	}
	if got := HookEventNames(true); !slices.Equal(got, []string{"rebuild_model", "rewrite_prompt", "rewrite_compaction", "rewrite_approval"}) {
		t.Errorf("raw events %v", got)
	}
}

func TestHK2_NonDictReplacementIsSkipped(t *testing.T) {
	_, notes := runHooks(HookToolResult, map[string]any{"text": "x"}, hookReturning("acme.a", HookToolResult, nil, constant("y")))
	if len(notes) != 1 || !strings.Contains(notes[0].Message, "want a dict") {
		t.Errorf("notes %v", notes)
	}
}

func TestHK3_RawHooksRunAfterOrdinaryOnes(t *testing.T) {
	r := NewRegistry(RegistryOptions{})
	raw := HookEntry{Event: rawRewritePrompt, Raw: true, Run: func(_ context.Context, _ HookEvent, p map[string]any) (any, error) {
		return map[string]any{"prompt": strings.ToUpper(p["prompt"].(string))}, nil
	}}
	plain := HookEntry{Event: HookPrompt, Run: func(_ context.Context, _ HookEvent, p map[string]any) (any, error) {
		return map[string]any{"prompt": p["prompt"].(string) + " b"}, nil
	}}
	// The raw hook loads first and is registered first, yet runs last.
	publish(r, "acme.raw", "g1", 0, SourceDev, &Set{Plugin: "acme.raw", Hooks: []HookEntry{raw}})
	publish(r, "acme.plain", "g2", 1, SourceDev, &Set{Plugin: "acme.plain", Hooks: []HookEntry{plain}})
	runs := r.View().HookRuns(HookPrompt)
	if len(runs) != 2 || runs[0].Plugin != "acme.plain" || runs[1].Plugin != "acme.raw" {
		t.Fatalf("runs %+v", runs)
	}
	out, notes := runHooks(HookPrompt, map[string]any{"prompt": "a"}, runs...)
	if out["prompt"] != "A B" || len(notes) != 0 {
		t.Errorf("prompt %v, notes %v", out, notes)
	}
}

func TestHK3_RawHookRefusedOnlyIfUnrepresentable(t *testing.T) {
	payload := map[string]any{"purpose": "turn", "items": []any{
		map[string]any{"id": "s", "role": "system", "text": "sys"},
		map[string]any{"id": "u", "role": "user", "text": "hi"}}}
	// Beyond transform_model's powers, within rebuild_model's: reorder,
	// drop, add, edit the system item.
	rebuilt := []any{
		map[string]any{"id": "u", "role": "user", "text": "hi"},
		map[string]any{"id": "s2", "role": "system", "text": "new system"},
	}
	out, notes := runHooks(HookTransformModel, payload, hookReturning("acme.a", rawRebuildModel, nil, constant(map[string]any{"items": rebuilt})))
	if !jsonEqual(out["items"], rebuilt) || len(notes) != 0 {
		t.Errorf("rebuild refused: %v", notes)
	}
	for _, bad := range []any{
		[]any{map[string]any{"id": "u", "role": "user", "text": "a"}, map[string]any{"id": "u", "role": "user", "text": "b"}},
		[]any{map[string]any{"id": "u", "role": "narrator", "text": "a"}},
		"items",
	} {
		out, notes := runHooks(HookTransformModel, payload, hookReturning("acme.a", rawRebuildModel, nil, constant(map[string]any{"items": bad})))
		if !jsonEqual(out, payload) || len(notes) != 1 || notes[0].Code != RawHookRefused {
			t.Errorf("%v: out %v notes %v", bad, out, notes)
		}
	}
	// rewrite_approval may lower the risk and waive the prompt.
	out, notes = runHooks(HookApproval, map[string]any{"risk": "high", "prompt": true},
		hookReturning("acme.a", rawRewriteApproval, nil, constant(map[string]any{"risk": "low", "prompt": false})))
	if out["risk"] != "low" || out["prompt"] != false || len(notes) != 0 {
		t.Errorf("rewrite_approval: %v %v", out, notes)
	}
}

func TestHK3_StagingChecksTheEventKind(t *testing.T) {
	st := NewStaging("acme.a", Rules{})
	st.AddHook(HookEntry{Event: HookToolCall, Raw: true})
	st.AddHook(HookEntry{Event: rawRebuildModel})
	st.AddHook(HookEntry{Event: "tool_cal"})
	st.AddHook(HookEntry{Event: HookToolCall})
	if got := codes(st.Set().Diagnostics); len(got) != 3 || len(st.Set().Hooks) != 1 {
		t.Errorf("diagnostics %v hooks %d", st.Set().Diagnostics, len(st.Set().Hooks))
	}
}
