// Command agentloop is the smallest complete agent host built on starhost:
// plugin tools offered to an OpenAI-compatible model, its tool calls
// dispatched through the plugins' hooks and the host's policy, /commands
// expanded, placeholders bound in the system prompt, the status line shown
// after each turn, and plugins hot-reloaded while it runs. docs/embedding.md
// walks through it; its test runs it against a fake model server.
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

	"github.com/crystal-star/crystal-star/starhost"
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
	ToolCalls  []starhost.OpenAIToolCall `json:"tool_calls,omitempty"`
	ToolCallID string                    `json:"tool_call_id,omitempty"`
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
	const thread = "main"
	history := []message{{Role: "system"}}
	for lines := bufio.NewScanner(in); lines.Scan(); {
		text := lines.Text()
		if name, args, ok := starhost.ParseCommand(text); ok {
			var ok bool
			if text, ok, err = h.Expand(ctx, name, args); err != nil || !ok {
				fmt.Fprintln(out, "/"+name, "gave no input:", err) // err is nil when it produced none
				continue
			}
		}
		history[0].Content = h.AssemblePrompt(ctx, thread).Text
		history = append(history, message{Role: "user", Content: h.UserMessage(ctx, thread, text)})
		for {
			tools := starhost.OpenAITools(h.Tools(ctx, thread, starhost.CatalogFor(h.Session().Facts().Mode)).List())
			reply, err := complete(ctx, args[0], history, tools)
			if err != nil {
				return err
			}
			history = append(history, reply)
			if len(reply.ToolCalls) == 0 {
				fmt.Fprintln(out, "assistant:", reply.Content)
				break
			}
			for _, call := range starhost.ToolCallsFromOpenAI(reply.ToolCalls) {
				res := h.Dispatch(ctx, thread, call, nil)
				fmt.Fprintf(out, "tool %s: %s\n", res.Call.Name, starhost.ResultText(res.Result))
				history = append(history, message{Role: "tool", ToolCallID: call.ID, Content: starhost.ResultText(res.Result)})
			}
		}
		fmt.Fprintln(out, "status:", h.StatusLine())
	}
	return nil
}

// complete sends one Chat Completions request and returns the reply.
func complete(ctx context.Context, url string, msgs []message, tools []starhost.OpenAITool) (message, error) {
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
