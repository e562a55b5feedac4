package mcpserve

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crystal-star/crystal-star/starhost"
)

// Elicitation is an answerer (starhost.Options.Ask) that puts a plugin's
// question (ctx.ask) to the MCP client that made the request being served,
// as elicitation/create in form mode: the client shows the message and a
// form built from the schema, and its answer — accept with the values,
// decline or cancel — is the plugin's. A call outside an MCP request (a
// timer, another host's call) and a client that did not declare
// elicitation decline: the callback gets None.
func Elicitation() starhost.AskFunc { return elicit }

func elicit(ctx context.Context, q starhost.Question) (starhost.Answer, error) {
	ss, _ := ctx.Value(sessionKey{}).(*mcp.ServerSession)
	if ss == nil || !offersElicitation(ss) {
		return starhost.Answer{Action: starhost.AnswerDecline}, nil
	}
	res, err := ss.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: q.Message, RequestedSchema: q.Schema})
	if err != nil {
		return starhost.Answer{}, err
	}
	return starhost.Answer{Action: res.Action, Content: res.Content}, nil
}

// offersElicitation reports whether the client declared form elicitation
// (an elicitation capability without modes means form, for clients older
// than the modes).
func offersElicitation(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil {
		return false
	}
	e := p.Capabilities.Elicitation
	return e.Form != nil || e.URL == nil
}

// promptMessages are the messages of a command's prompt: one user message
// holding its input, or, for a command that returned content parts, one
// user message per part in order — text, image, audio, an embedded
// resource or a resource link.
func promptMessages(res starhost.CommandResult) []*mcp.PromptMessage {
	if len(res.Parts) == 0 {
		return []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: res.Input}}}
	}
	out := make([]*mcp.PromptMessage, len(res.Parts))
	for i, p := range res.Parts {
		out[i] = &mcp.PromptMessage{Role: "user", Content: contentPart(p)}
	}
	return out
}
