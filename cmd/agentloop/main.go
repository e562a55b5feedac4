// Command agentloop is the smallest complete agent host built on starhost:
// plugin tools offered to an OpenAI-compatible model, its tool calls
// dispatched through the plugins' hooks and the host's policy, /commands
// expanded, placeholders bound in the system prompt, the status line shown
// after each turn, and plugins hot-reloaded while it runs. It serves two
// agent sessions from the one host: a work session, and a plan session for
// the lines that start with "plan> " — each with its own mode, history,
// tools and status line. docs/embedding.md walks through it; its test runs
// it against a fake model server.
//
//	agentloop MODEL_URL PLUGIN_DIR...   (one user message per input line)
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"

	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/toolwire"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "agentloop:", err)
		os.Exit(1)
	}
}

// message is one chat message of the OpenAI Chat Completions API.
type message struct {
	Role       string                    `json:"role"`
	Content    string                    `json:"content"`
	ToolCalls  []toolwire.OpenAIToolCall `json:"tool_calls,omitempty"`
	ToolCallID string                    `json:"tool_call_id,omitempty"`
}

// conversation is one agent session of the loop: its host session, its
// one thread and its history.
type conversation struct {
	label   string // printed before its lines ("" for work)
	thread  *starhost.Thread
	history []message
}

func run(ctx context.Context, args []string, in io.Reader, out io.Writer) error {
	if len(args) < 2 {
		return errors.New("usage: agentloop MODEL_URL PLUGIN_DIR...")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	h, err := starhost.New(starhost.Options{
		Dev:   args[1:],
		Notes: func(n starhost.Note) { fmt.Fprintln(out, "note:", n.Message) },
		Events: func(e starhost.Event) {
			if e.Kind == starhost.EventReloaded || e.Kind == starhost.EventKept {
				fmt.Fprintln(out, e.Kind, e.Plugin, e.Generation)
			}
		},
		Points: starhost.PointDefaults{
			Sections: map[string]string{starhost.TargetIdentity: "You are a coding agent for {{project}}."}, // a plugin binds {{project}}
			Approve: func(context.Context, starhost.ApprovalRequest) starhost.Approval {
				return starhost.Approval{Approved: true}
			},
		},
	})
	if err != nil {
		return err
	}
	defer h.Close(context.Background())
	if err := h.Start(ctx); err != nil {
		return err
	}
	go h.Watch(ctx, nil) // a saved plugin reloads while the loop runs
	convs := map[string]*conversation{}
	for _, mode := range []string{"work", starhost.PlanMode} {
		s, err := h.NewSession(ctx, starhost.SessionOptions{Facts: starhost.Facts{SessionID: mode, Mode: mode}})
		if err != nil {
			return err
		}
		defer s.End(context.Background())
		c := &conversation{thread: s.StartThread(ctx, "main"), history: []message{{Role: "system"}}}
		if mode == starhost.PlanMode {
			c.label = "plan "
		}
		convs[mode] = c
	}
	for lines := bufio.NewScanner(in); lines.Scan(); {
		c, text := convs["work"], lines.Text()
		if rest, ok := strings.CutPrefix(text, "plan> "); ok {
			c, text = convs[starhost.PlanMode], rest
		}
		if err := c.turn(ctx, args[0], text, out); err != nil {
			return err
		}
	}
	return nil
}

// turn runs one user message of the conversation to the model's answer.
func (c *conversation) turn(ctx context.Context, url, text string, out io.Writer) error {
	s := c.thread.Session()
	if name, args, ok := toolwire.ParseCommand(text); ok {
		var err error
		if text, ok, err = s.Expand(ctx, name, args); err != nil || !ok {
			fmt.Fprintln(out, c.label+"/"+name, "gave no input:", err) // err is nil when it produced none
			return nil
		}
	}
	c.history[0].Content = c.thread.AssemblePrompt(ctx).Text
	c.history = append(c.history, message{Role: "user", Content: c.thread.UserMessage(ctx, text)})
	for {
		tools := toolwire.OpenAITools(c.thread.Tools(ctx, starhost.CatalogFor(s.Facts().Mode)).List())
		reply, err := complete(ctx, url, c.history, tools)
		if err != nil {
			return err
		}
		c.history = append(c.history, reply)
		if len(reply.ToolCalls) == 0 {
			fmt.Fprintln(out, c.label+"assistant:", reply.Content)
			break
		}
		for _, call := range toolwire.ToolCallsFromOpenAI(reply.ToolCalls) {
			res := c.thread.Dispatch(ctx, call, nil)
			fmt.Fprintf(out, "%stool %s: %s\n", c.label, res.Call.Name, toolwire.ResultText(res.Result))
			answer := toolwire.ToolMessageForOpenAI(res)
			c.history = append(c.history, message{Role: answer.Role, ToolCallID: answer.ToolCallID, Content: answer.Content})
		}
	}
	fmt.Fprintln(out, c.label+"status:", s.StatusLine())
	return nil
}

// complete sends one Chat Completions request and returns the reply.
func complete(ctx context.Context, url string, msgs []message, tools []toolwire.OpenAITool) (message, error) {
	body, _ := json.Marshal(map[string]any{"model": "fake", "messages": msgs, "tools": tools})
	req, err := http.NewRequestWithContext(ctx, "POST", url+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return message{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return message{}, err
	}
	defer resp.Body.Close()
	var reply struct{ Choices []struct{ Message message } }
	if err := json.NewDecoder(resp.Body).Decode(&reply); err != nil || len(reply.Choices) == 0 {
		return message{}, fmt.Errorf("model reply (%s): %v", resp.Status, err)
	}
	return reply.Choices[0].Message, nil
}
