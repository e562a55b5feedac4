package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crystal-star/crystal-star/starhost"
)

// SamplingFacts are the session model's facts when the MCP client's model
// is the session model (SamplingModels): publish them with
// Options.Session.Model so plugins see a session model ("mcp/client").
var SamplingFacts = starhost.ModelFacts{Provider: "mcp", Protocol: "mcp-sampling", Model: "client"}

// samplingDefaultMaxTokens bounds a reply when the plugin set no
// max_tokens: sampling/createMessage requires a bound.
const samplingDefaultMaxTokens = 1024

// SamplingModels is a model provider (starhost.Options.Models) whose
// clients complete through the MCP client that made the request being
// served (sampling/createMessage): a plugin tool or command called over
// MCP reads ctx.models.session and gets the client's model, with no API
// key on this side. A call outside an MCP request (a timer, a hook of
// another host), or to a client that did not declare sampling, fails with
// a message that says so. Only the session role is served.
func SamplingModels() starhost.ModelProvider { return samplingProvider{} }

type samplingProvider struct{}

func (samplingProvider) NewClient(_ context.Context, spec starhost.ClientSpec) (starhost.ModelClient, error) {
	if spec.Role != starhost.RoleSession {
		return nil, errors.New("only the session model is the MCP client's model (sampling)")
	}
	return samplingClient{}, nil
}

type samplingClient struct{}

// sessionKey carries the MCP session of the request a callback serves.
type sessionKey struct{}

func withSession(ctx context.Context, ss *mcp.ServerSession) context.Context {
	if ss == nil {
		return ctx
	}
	return context.WithValue(ctx, sessionKey{}, ss)
}

func (samplingClient) Complete(ctx context.Context, req starhost.ModelRequest) (starhost.ModelReply, error) {
	ss, _ := ctx.Value(sessionKey{}).(*mcp.ServerSession)
	if ss == nil {
		return starhost.ModelReply{}, errors.New("no MCP client to sample from: this call did not come from an MCP request")
	}
	if p := ss.InitializeParams(); p == nil || p.Capabilities == nil || p.Capabilities.Sampling == nil {
		return starhost.ModelReply{}, errors.New("the MCP client does not offer sampling")
	}
	params := &mcp.CreateMessageParams{MaxTokens: int64(req.MaxTokens), Messages: []*mcp.SamplingMessage{}}
	if params.MaxTokens == 0 {
		params.MaxTokens = samplingDefaultMaxTokens
	}
	var system []string
	for _, m := range req.Messages {
		if m.Role == "system" {
			system = append(system, m.Content)
			continue
		}
		params.Messages = append(params.Messages, &mcp.SamplingMessage{Role: mcp.Role(m.Role), Content: &mcp.TextContent{Text: m.Content}})
	}
	params.SystemPrompt = strings.Join(system, "\n\n")
	w := &samplingWrites{cancelled: make(chan struct{})}
	res, err := ss.CreateMessage(context.WithValue(ctx, samplingWritesKey{}, w), params)
	if err != nil {
		// Only a call the client cancelled waits for the notice: at a
		// shutdown the session may close before the SDK writes it, and
		// the wait would take the time the call's answer has.
		if ctx.Err() != nil && w.onStream.Load() && !errors.Is(context.Cause(ctx), errShuttingDown) {
			w.awaitCancelNotice()
		}
		return starhost.ModelReply{}, err
	}
	text, ok := res.Content.(*mcp.TextContent)
	if !ok {
		return starhost.ModelReply{}, errors.New("the MCP client's model answered without text")
	}
	return starhost.ModelReply{Text: text.Text, FinishReason: res.StopReason}, nil
}

// cancelNoticeWait bounds how long a cancelled sampling request waits for
// its notifications/cancelled to be written to its event stream.
const cancelNoticeWait = 250 * time.Millisecond

// samplingWrites is what the HTTP event store saw written of one sampling
// request: the request itself, then its cancellation.
//
// The SDK sends a cancelled request's notifications/cancelled off the
// caller's path (its issue #1150). Over Streamable HTTP that notice goes on
// the event stream of the tool call being served, and the call's answer
// closes that stream: when the answer came first the SDK dropped the notice
// (3 runs in 8 cancelled the client's sampling). So a cancelled sampling
// request whose request went to an event stream returns only once its
// cancellation is on that stream too; the tool's answer follows it.
type samplingWrites struct {
	onStream  atomic.Bool   // the request was written to an event stream
	cancelled chan struct{} // closed once its cancellation was written
	once      sync.Once
}

type samplingWritesKey struct{}

func (w *samplingWrites) awaitCancelNotice() {
	t := time.NewTimer(cancelNoticeWait)
	defer t.Stop()
	select {
	case <-w.cancelled:
	case <-t.C:
	}
}

// watchingStore is the HTTP event store: it stores events as the SDK's
// store does, but not the answer to a call the client cancelled (see
// postFilter), and tells a sampling request which of its messages were
// written (the SDK writes them with the request's context).
type watchingStore struct {
	mcp.EventStore
	calls *callsInFlight
}

func (s watchingStore) Append(ctx context.Context, sessionID, streamID string, data []byte) error {
	var err error
	if !s.calls.cancelledAnswer(sessionID, data) {
		err = s.EventStore.Append(ctx, sessionID, streamID, data)
	}
	if w, ok := ctx.Value(samplingWritesKey{}).(*samplingWrites); ok {
		var m struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(data, &m)
		if m.Method == "notifications/cancelled" {
			w.once.Do(func() { close(w.cancelled) })
		} else {
			w.onStream.Store(true)
		}
	}
	return err
}
