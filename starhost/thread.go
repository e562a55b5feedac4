package starhost

import (
	"context"
	"slices"

	"github.com/crystal-star/crystal-star/contrib"
)

// Thread is one conversation of a session: the per-thread calls (tools,
// dispatch, prompt assembly, chat context, compaction, turn and thread
// moments, signals, subagents) hang off it, so none takes a thread id. Get
// one with Session.Thread, Session.StartThread or Thread.Fork. A Thread is
// a small value: make one per call or keep it. Its calls serve its
// session: callbacks see that session's facts, and status values they set
// go to that session's line. Thread ids name conversations host-wide
// (thread-scoped entries and captured state are keyed by them), so two
// sessions should not share an id other than "". Safe for concurrent use.
type Thread struct {
	s  *Session
	id string
}

// ID returns the thread's id ("" for a session's one conversation).
func (t *Thread) ID() string { return t.id }

// Session returns the session the thread belongs to.
func (t *Thread) Session() *Session { return t.s }

// bind returns ctx carrying the thread's session.
func (t *Thread) bind(ctx context.Context) context.Context { return t.s.bind(ctx) }

// Fork returns the handle of child, forked from t, and tells the thread
// observers (event "forked"). The child inherits no thread-scoped entry of
// the parent (DC11): an observer re-registers what should follow the fork.
func (t *Thread) Fork(ctx context.Context, child string) *Thread {
	t.s.h.threadForked(t.bind(ctx), t.id, child)
	return t.s.Thread(child)
}

// AssemblePrompt returns the system prompt of thread: the prompt_section
// entries in order — the host's sections (Options.Points.Sections) where no
// plugin replaced them, a replacement where one did and answered, nothing
// where one answered None — then the thread_context entries, joined by
// blank lines; then the last prompt_assembler takes over if there is one
// (DC10); then the prompt hooks append and the rewrite_prompt raw hooks
// rewrite (HK2, HK3). A failing section is skipped with a note (DC3).
//
// The result is captured per thread (DC12): later calls return it until an
// invalidation of prompt_section, thread_context or prompt_assembler (a
// plugin reload, an entry added or released for the thread) or the end of
// the thread. Call it when a thread starts and whenever Subscribe
// reports a change.
func (t *Thread) AssemblePrompt(ctx context.Context) Prompt {
	p := *t.s.h.promptFor(t.bind(ctx), t.id) // the captured one stays the host's
	p.Sections, p.Notes = slices.Clone(p.Sections), slices.Clone(p.Notes)
	return p
}

// ChatContext returns the chat context entries of one turn of thread (per
// call): the text each chat_context entry adds, in order.
func (t *Thread) ChatContext(ctx context.Context, turn string) []string {
	return t.s.h.chatContext(t.bind(ctx), t.id, turn)
}

// Compact produces the summary of a compaction of thread: the compaction
// hooks may append to the summary prompt or the body and the
// rewrite_compaction raw hooks rewrite them (HK2, HK3); then the
// compaction summarizer — the host's (Options.Points.Summarize) or the
// plugin entry that replaced it — writes the summary. The summarizer is
// authoritative: its failure fails the compaction with an error naming the
// point and the plugin, wrapping the entry's code (ErrPointFailed, or its
// own error(code, …)) (DC3). A replacement answering None suppresses the
// summary ("", nil). Before Start the error is ErrNotStarted.
func (t *Thread) Compact(ctx context.Context, prompt, body string) (string, error) {
	return t.s.h.compact(t.bind(ctx), t.id, prompt, body)
}

// Compactable reports whether the results of tool may be compacted in
// thread: the compactable_policy entries are asked in order, the host's
// (Options.Points.Compactable) last; the first answer decides, and with
// none the results are kept.
func (t *Thread) Compactable(ctx context.Context, tool string) bool {
	return t.s.h.compactable(t.bind(ctx), t.id, tool)
}

// Dispatch calls a tool with the host's policy: one tool call of thread runs
// through hooks, policy and approval — the one difference from
// ToolSnapshot.Invoke, which calls the same tool bare. The pipeline is the
// same for built-in, plugin and external tools (HK1):
//
//  0. a call that cannot run is answered before any stage or hook: a done
//     ctx (cancelled; nothing runs), a name that is neither in the catalog
//     the session's mode offers (Tools(ctx, thread, CatalogFor(mode)): Plan
//     in plan mode, Work otherwise — offer the model that catalog, so a
//     tool it was never offered never runs) nor one of Options.BuiltinTools
//     (unknown_tool; with no BuiltinTools and a non-nil invoke, the invoker
//     answers other names, but never a plugin or external tool the snapshot
//     leaves out; a built-in tool with a nil invoke is unknown_tool too,
//     saying the host's Invoker runs it),
//     arguments that are not JSON or break the tool's schema
//     (invalid_arguments). The approver is asked only about calls that can
//     run;
//  1. classify (Classify; an unknown tool is medium risk and asks), then the
//     policy stage (dispatch_policy: the host's policy and plugin entries;
//     any reason denies), then the approval hooks (raise the risk, require a
//     prompt) and rewrite_approval raw hooks, then the approval stage
//     (dispatch_approval: plugin entries first, the host's approver last;
//     the first answer decides);
//  2. the tool_call hooks, which may replace the name or arguments; a
//     rewritten call is classified and approved again (HK2);
//  3. invoke: a non-nil invoke first (the host's own tools); a nil one, or
//     one that answers ran false, leaves the call to the thread's tool
//     snapshot, which runs it on the arguments step 0 decoded;
//  4. the tool_result hooks, which may replace a successful result's text;
//  5. the recorder stage (dispatch_recorder, observers);
//  6. the normalizer stage (dispatch_normalizer, a fold): authoritative, so
//     a failing entry fails the call with point_failed or the entry's own
//     error(code, message) (DC3).
//
// Empty or null arguments are {} for every stage, the approver and the
// invoker (Arguments). A refused call returns error call_denied and is
// recorded, not invoked. A
// stage that fails because ctx ended yields cancelled.
// Every stage is resolved when Dispatch starts: the call finishes with the
// entries it started with (DC12).
func (t *Thread) Dispatch(ctx context.Context, call ToolCall, invoke Invoker) DispatchResult {
	return t.s.h.dispatch(t.bind(ctx), t.id, call, invoke)
}

// End tells the thread observers that thread ended, then releases
// every entry scoped to it and forgets what was captured for it.
func (t *Thread) End(ctx context.Context) {
	t.s.h.threadEnded(t.bind(ctx), t.id)
}

// ModelResponse runs the model_response hooks (read only) on one response:
// its purpose, finish reason, items and usage. usage holds token counts
// by name — input_tokens, output_tokens, and when the provider reports
// them total_tokens, cached_input_tokens, reasoning_tokens — and anything
// else the embedder adds; the hooks always see input_tokens, output_tokens
// and total_tokens as ints (0 when not reported; total_tokens their sum
// when not given). docs/api.md documents the shape plugins see.
func (t *Thread) ModelResponse(ctx context.Context, purpose, finishReason string, items []ModelItem, usage map[string]any) {
	t.s.h.modelResponse(t.bind(ctx), t.id, purpose, finishReason, items, usage)
}

// Points lists every contribution point of the table (DC2), in table
// order, with the entries it resolves to for thread.
func (t *Thread) Points() []PointInfo {
	return t.s.h.pointsFor(t.id)
}

// PrepareModelCall runs what stands between the host and one outbound model
// call of thread: the pre-send context transforms (context_transform, the
// memory default among them; per call) add their text to req.Context — a
// memory replacement that took over the system prompt (MC3) is not asked
// again here; each gets {thread, purpose, inputs} with the prompt's inputs
// (docs/points.md); the chat middleware pipeline (captured per thread) folds over the items; the
// transform_model hooks change item text and the rebuild_model raw hooks may
// rebuild the items (HK2, HK3). Failing entries are skipped with a note.
func (t *Thread) PrepareModelCall(ctx context.Context, req OutboundCall) OutboundCall {
	return t.s.h.prepareModelCall(t.bind(ctx), t.id, req)
}

// Resolve returns the resolved list of a point for thread at this moment
// (DC1, DC9–DC11): defaults and appended entries by ascending order, ties by
// registration order, each replaced default's place taken by the winning
// replacement, workspace entries plus those of thread. Run it with its
// Collect, First, Fold or Last, which apply the point's failure policy
// (DC3); an operation that holds it finishes with these entries (DC12).
func (t *Thread) Resolve(point PointName) *Resolution {
	return resolutionOf(t.s.h.registry.Resolve(contrib.PointName(point), t.id), t.s)
}

// Signals returns the runtime signals of thread (thread_signal, per call).
func (t *Thread) Signals(ctx context.Context) []string {
	return t.s.h.signals(t.bind(ctx), t.id)
}

// Subagents lists the subagent runtimes the subagent_runtime entries offer
// to thread (per call).
func (t *Thread) Subagents(ctx context.Context) []Subagent {
	return t.s.h.subagents(t.bind(ctx), t.id)
}

// SuggestCommitMessage suggests a commit message for diff: the host's
// suggester (Options.Points.CommitMessage) or the plugin entry that
// replaced it; "" when there is none.
func (t *Thread) SuggestCommitMessage(ctx context.Context, diff string) string {
	return t.s.h.suggestCommitMessage(t.bind(ctx), t.id, diff)
}

// Tools returns the tools of catalog c that thread may offer the model, as
// one tool planning (MC2, DC5) — the same list Dispatch checks calls
// against and the memory target receives (toolsFor). It is every tool of c
// in catalog order (CC6) plus the tools each tool_provider entry offers for
// this planning — every provider is asked once, with {catalog, thread,
// mode, workspace} (its ctx carries the session view); its tools are
// validated like static ones and join after the plugin tools, before
// external tools, through the same proxies — without the names the
// tool_restriction entries withhold for thread, provided tools included.
// A failing provider is skipped with a note. Keep the snapshot for the
// model call it plans and take a new one for the next. Call a tool of it
// bare with ToolSnapshot.Invoke, or with the host's hooks, policy and
// approval with Dispatch. A host with no threads passes "".
func (t *Thread) Tools(ctx context.Context, c Catalog) *ToolSnapshot {
	return t.s.h.tools(t.bind(ctx), t.id, c)
}

// Trace sends one trace event to the trace sinks (observers).
func (t *Thread) Trace(ctx context.Context, name string, attributes map[string]any) {
	t.s.h.trace(t.bind(ctx), t.id, name, attributes)
}

// TurnFinished runs the turn_finished hooks (read only), then the turn
// observers, with the stop reason.
func (t *Thread) TurnFinished(ctx context.Context, turn, text, stopReason string) {
	t.s.h.turnFinished(t.bind(ctx), t.id, turn, text, stopReason)
}

// TurnStarted runs the turn_started hooks (read only), then the turn
// observers, which may add entries scoped to thread (DC11). text is the
// stored user text.
func (t *Thread) TurnStarted(ctx context.Context, turn, text string) {
	t.s.h.turnStarted(t.bind(ctx), t.id, turn, text)
}

// UserMessage runs the user_message hooks on the text the user sent, before
// it is stored, and returns the text to store: a hook may replace it, never
// with blank text (HK2).
func (t *Thread) UserMessage(ctx context.Context, text string) string {
	return t.s.h.userMessage(t.bind(ctx), t.id, text)
}
