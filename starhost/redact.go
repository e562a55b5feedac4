// Secret redaction: API keys never reach notes, errors or replies.

package starhost

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/starhost/models"
)

// redact removes every configured API key from s.
func (h *Host) redact(s string) string {
	if keys := h.models.secrets.Load(); keys != nil {
		for _, k := range *keys {
			s = strings.ReplaceAll(s, k, "[redacted]")
		}
	}
	return s
}

// redactErr returns err without API keys in its text; an error whose text
// holds none is returned as is, so errors.Is still sees through it, and a
// *ModelError (or the built-in
// adapters' *models.Error) keeps its stable code.
func (h *Host) redactErr(err error) error {
	if msg := h.redact(err.Error()); msg != err.Error() {
		var me *models.Error
		if errors.As(err, &me) {
			c := *me
			c.Detail = h.redact(c.Detail)
			return &c
		}
		var ee *ModelError
		if errors.As(err, &ee) {
			c := *ee
			c.Detail = h.redact(c.Detail)
			return &c
		}
		return errors.New(msg)
	}
	return err
}

// redactNote removes API keys from every text of a note (a server's error
// echoing the key must not reach the embedder's notes).
func (h *Host) redactNote(n contrib.Diagnostic) contrib.Diagnostic {
	n.Message, n.Remedy, n.Detail = h.redact(n.Message), h.redact(n.Remedy), h.redact(n.Detail)
	return n
}

// reportingClient reports each call to Options.ModelCalls and keeps API
// keys out of errors and replies.
type reportingClient struct {
	h      *Host
	plugin string
	role   ModelRole
	facts  ModelFacts
	client contrib.ModelClient
}

func (c *reportingClient) Complete(ctx context.Context, req contrib.ModelRequest) (contrib.ModelReply, error) {
	start := time.Now()
	reply, err := c.client.Complete(ctx, req)
	reply.Text = c.h.redact(reply.Text)
	call := ModelCall{Plugin: c.plugin, Role: c.role, Provider: c.facts.Provider, Model: c.facts.Model,
		Elapsed: time.Since(start), InputTokens: reply.InputTokens, OutputTokens: reply.OutputTokens}
	if err != nil {
		err = c.h.redactErr(err)
		call.Err = err.Error()
	}
	if c.h.opts.ModelCalls != nil && c.plugin != "" {
		c.h.opts.ModelCalls(call)
	}
	return reply, err
}
