package executor

import (
	"bufio"
	"context"
	"errors"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/mcpserve"
	"github.com/crystal-star/crystal-star/starhost/remote"
)

// call serves a tools/call of a remote tool: the bundle its _meta names,
// once per call id.
func (x *Executor) call(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	start := time.Now()
	name := req.Params.Name
	fp, _ := req.Params.Meta[remote.MetaBundle].(string)
	id, _ := req.Params.Meta[remote.MetaCallID].(string)
	if !x.calls.enter(x.draining.Load) {
		return x.done(start, notStarted(remote.CodeDraining, "this executor is shutting down and admits no call")), nil
	}
	defer x.calls.leave()
	b, err := x.get(ctx, fp)
	var ref *refusal
	switch {
	case err == errMissing:
		return x.done(start, notStarted(remote.CodeBundleMissing, "this executor holds no bundle "+fp)), nil
	case errors.As(err, &ref):
		return x.done(start, notStarted(string(ref.code), ref.msg)), nil
	case err != nil:
		return x.done(start, notStarted(string(starhost.ErrToolUnavailable), err.Error())), nil
	}
	if _, ok := b.tools[name]; !ok {
		return x.done(start, notStarted(string(starhost.ErrToolUnavailable), "bundle "+fp+" has no remote tool "+name)), nil
	}
	rec, first := x.ledger.begin(id)
	if !first {
		x.metrics.duplicates.Add(1)
		select {
		case <-rec.done:
			return x.done(start, rec.res), nil
		case <-ctx.Done():
			return failed(starhost.ErrCancelled, "the caller's context ended"), nil
		}
	}
	res := b.session.Thread("").Tools(ctx, starhost.PlanAndWork).Invoke(ctx, name, req.Params.Arguments)
	out := mcpserve.CallToolResult(res)
	if !res.OK() {
		if out.Meta == nil {
			out.Meta = mcp.Meta{}
		}
		out.Meta[remote.MetaCode] = string(res.Error.Code)
	}
	x.ledger.end(rec, out)
	return x.done(start, out), nil
}

// done counts a finished call by its code and latency.
func (x *Executor) done(start time.Time, out *mcp.CallToolResult) *mcp.CallToolResult {
	code := "ok"
	if out.IsError {
		code, _ = out.Meta[remote.MetaCode].(string)
	}
	x.metrics.observe(code, time.Since(start))
	return out
}

// notStarted answers a call that ran nothing: the host may send it to
// another executor.
func notStarted(code, msg string) *mcp.CallToolResult {
	out := failed(starhost.Code(code), msg)
	out.Meta[remote.MetaNotStarted] = true
	return out
}

func failed(code starhost.Code, msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: string(code) + ": " + msg}},
		Meta: mcp.Meta{remote.MetaCode: string(code)}}
}

// ledger records each call id before its call runs (calls.log, one id a
// line), so a call sent again — by a host retrying it, or after a restart
// — is answered instead of run again.
type ledger struct {
	mu    sync.Mutex
	f     *os.File
	calls map[string]*record
	order []string // ids by age, to forget the oldest past maxRecords
}

// maxRecords is how many call ids the ledger remembers.
const maxRecords = 1 << 20

type record struct {
	done chan struct{}
	res  *mcp.CallToolResult
}

// openLedger reads the ids of earlier runs and appends to path. A call of
// an earlier run is answered tool_interrupted: it began and its result is
// lost with that run.
func openLedger(path string) (*ledger, error) {
	l := &ledger{calls: map[string]*record{}}
	if f, err := os.Open(path); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if id := sc.Text(); id != "" && id != "-" {
				r := &record{done: make(chan struct{}), res: failed(starhost.ErrToolInterrupted,
					"this executor restarted after the call began; it is not run again")}
				close(r.done)
				l.remember(id, r)
			}
		}
		f.Close()
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	l.f = f
	return l, nil
}

func (l *ledger) remember(id string, r *record) {
	if _, ok := l.calls[id]; !ok {
		l.order = append(l.order, id)
	}
	l.calls[id] = r
	if len(l.order) > maxRecords {
		delete(l.calls, l.order[0])
		l.order = l.order[1:]
	}
}

// begin returns the record of id and whether this is its first call
// (then the id is on disk before the call runs). A call without an id
// (a plain MCP client) is always first.
func (l *ledger) begin(id string) (*record, bool) {
	r := &record{done: make(chan struct{})}
	l.mu.Lock()
	defer l.mu.Unlock()
	if id == "" {
		_, _ = l.f.WriteString("-\n")
		return r, true
	}
	if old, ok := l.calls[id]; ok {
		return old, false
	}
	l.remember(id, r)
	_, _ = l.f.WriteString(id + "\n")
	return r, true
}

func (l *ledger) end(r *record, res *mcp.CallToolResult) {
	r.res = res
	close(r.done)
}

func (l *ledger) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	_ = l.f.Close()
}
