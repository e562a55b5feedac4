package mcpserve

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crystal-star/crystal-star/starhost"
)

// ArgsArgument is the one argument of every command prompt: the text after
// /name, as a user types it.
const ArgsArgument = "args"

// prompts lists a prompt per name /name reaches among markdown and plugin
// commands, aliases included; built-in verbs are the embedder's and not
// served. A shadowed plugin command is reachable only by its aliases.
func (s *Server) prompts() map[string]*mcp.Prompt {
	out := map[string]*mcp.Prompt{}
	for _, c := range s.h.Commands() {
		if c.Origin == starhost.OriginBuiltin {
			continue
		}
		names := c.Aliases
		if !c.Shadowed {
			names = append([]string{c.Name}, names...)
		}
		for i, n := range names {
			if _, taken := out[n]; taken {
				continue // an earlier command in resolution order owns it
			}
			desc := c.Description
			if n != c.Name || i > 0 && !c.Shadowed {
				desc = strings.TrimSpace(fmt.Sprintf("Alias of /%s. %s", c.Name, desc))
			}
			out[n] = &mcp.Prompt{Name: n, Description: desc, Arguments: promptArguments(c.ArgumentHint)}
		}
	}
	return out
}

// promptArguments are a command's prompt arguments. A hint made only of
// <name> (required) and [name] (optional) words names them, in order:
// "<arg1> [arg2]"; prompts/get joins the values given, in that order, into
// the text after /name. Any other hint is the description of the one
// argument "args", the text after /name as a user types it.
func promptArguments(hint string) []*mcp.PromptArgument {
	var named []*mcp.PromptArgument
	for _, w := range strings.Fields(hint) {
		req := strings.HasPrefix(w, "<") && strings.HasSuffix(w, ">")
		opt := strings.HasPrefix(w, "[") && strings.HasSuffix(w, "]")
		name := strings.Trim(w, "<>[]")
		if !req && !opt || !argName.MatchString(name) || slices.ContainsFunc(named, func(a *mcp.PromptArgument) bool { return a.Name == name }) {
			named = nil
			break
		}
		named = append(named, &mcp.PromptArgument{Name: name, Required: req})
	}
	if named != nil {
		return named
	}
	desc := "What follows the command name."
	if hint != "" {
		desc = "What follows the command name: " + hint
	}
	return []*mcp.PromptArgument{{Name: ArgsArgument, Description: desc}}
}

var argName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// commandArgs is the text after /name for the arguments given to prompt p:
// the named arguments' values in order, or the "args" argument. The values
// are positional, so a missing required argument, or a missing optional
// one before a given one, is an invalid-params error naming it: joining
// the rest would shift a later value into its place.
func commandArgs(p *mcp.Prompt, given map[string]string) (string, error) {
	if len(p.Arguments) == 1 && p.Arguments[0].Name == ArgsArgument {
		return given[ArgsArgument], nil
	}
	var words []string
	missing := ""
	for _, a := range p.Arguments {
		v := given[a.Name]
		switch {
		case v == "" && a.Required:
			return "", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("prompt %q: missing required argument %q", p.Name, a.Name)}
		case v == "":
			missing = cmp.Or(missing, a.Name)
		case missing != "":
			return "", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
				Message: fmt.Sprintf("prompt %q: argument %q is given but %q before it is not (the values are positional)", p.Name, a.Name, missing)}
		default:
			words = append(words, v)
		}
	}
	return strings.Join(words, " "), nil
}

func (s *Server) syncPrompts() {
	applyMirror(s.mirror.prompts, s.prompts(), func(p *mcp.Prompt) {
		s.srv.AddPrompt(p, func(ctx context.Context, r *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			args, err := commandArgs(p, r.Params.Arguments)
			if err != nil {
				return nil, err
			}
			return s.getPrompt(withSession(ctx, r.Session), r.Params.Name, args)
		})
	}, s.srv.RemovePrompts)
}

// getPrompt runs the command as /name args would and returns the turn input
// it produced as one user message. A command that fails or passes produces
// no input: that is an error naming the command (its own failure went out
// as a note, which a client sees as a log message).
func (s *Server) getPrompt(ctx context.Context, name, args string) (*mcp.GetPromptResult, error) {
	res, err := s.h.ExecuteCommand(ctx, name, args)
	switch {
	case errors.Is(err, starhost.ErrUnknownCommand), errors.Is(err, starhost.ErrBuiltinCommand):
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown prompt %q", name)}
	case err != nil:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("/%s: %v", name, err)}
	case !res.Produced:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("command_produced_nothing: /%s produced no input (it failed or passed; see the log)", name)}
	}
	return &mcp.GetPromptResult{
		Description: fmt.Sprintf("/%s from %s", name, origin(res)),
		Messages:    promptMessages(res),
	}, nil
}

func origin(res starhost.CommandResult) string {
	if res.Plugin != "" {
		return string(res.Origin) + " " + res.Plugin
	}
	return string(res.Origin)
}

// complete offers, for a prompt's args, the {{placeholder}} names that
// complete what is typed after its last "{{", and for a skill resource's
// name the skills that start with the value.
func (s *Server) complete(_ context.Context, r *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	values := []string{}
	p := r.Params
	switch {
	case p.Ref.Type == "ref/prompt":
		values = s.placeholderCompletions(p.Argument.Value)
	case p.Ref.Type == "ref/resource" && p.Ref.URI == skillTemplate:
		for _, sk := range s.h.Skills() {
			if strings.HasPrefix(sk.Name, p.Argument.Value) {
				values = append(values, sk.Name)
			}
		}
	}
	if len(values) > 100 { // the protocol's limit per answer
		return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values[:100], Total: len(values), HasMore: true}}, nil
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: len(values)}}, nil
}

// placeholderCompletions completes an open "{{prefix" at the end of typed
// text with each placeholder name: the text as it would read completed.
func (s *Server) placeholderCompletions(typed string) []string {
	i := strings.LastIndex(typed, "{{")
	if i < 0 || strings.Contains(typed[i:], "}}") {
		return []string{}
	}
	prefix := typed[i+2:]
	out := []string{}
	for _, name := range s.h.PlaceholderNames() {
		if strings.HasPrefix(name, prefix) {
			out = append(out, typed[:i]+"{{"+name+"}}")
		}
	}
	return out
}
