package mcpserve

import (
	"context"
	"errors"
	"strings"

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
	res, err := ss.CreateMessage(ctx, params)
	if err != nil {
		return starhost.ModelReply{}, err
	}
	text, ok := res.Content.(*mcp.TextContent)
	if !ok {
		return starhost.ModelReply{}, errors.New("the MCP client's model answered without text")
	}
	return starhost.ModelReply{Text: text.Text, FinishReason: res.StopReason}, nil
}
