package worker

import (
	"context"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/contrib/wire"
)

// Questions (ctx.ask) cross as a call within the callback's call, as model
// completions do: the host answers with the context of the request the
// callback serves (an MCP session's elicitation), and pauses that call's
// callback_timeout while the person is asked.

var _ builtins.AskSource = (*remoteServices)(nil)

func (s *remoteServices) Ask(ctx context.Context, _ string, q contrib.Question) (contrib.Answer, error) {
	var a contrib.Answer
	if err := s.conn.Call(ctx, wire.MethodAsk, q, &a); err != nil {
		return contrib.Answer{}, remoteErr(err)
	}
	return a, nil
}

// ask is the host side: the host's answerer for this plugin (never another
// plugin's name, whatever the worker says), with the calling request's
// wall clock paused while the person is asked.
func (h *HostSide) ask(ctx context.Context, q contrib.Question) (contrib.Answer, error) {
	src, ok := h.req.Services.(builtins.AskSource)
	if !ok {
		return contrib.Answer{Action: contrib.AnswerDecline}, nil
	}
	if err := contrib.CheckQuestionSchema(q.Schema); err != nil {
		return contrib.Answer{}, err
	}
	resume := contrib.PauseWaitClock(ctx)
	defer resume()
	return src.Ask(ctx, h.req.Plugin, q)
}
