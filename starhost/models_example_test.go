package starhost_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/crystal-star/crystal-star/starhost"
)

// upperModels is an embedder's model stack: it hands each plugin a fresh
// client (here one that shouts the prompt back).
type upperModels struct{}

func (upperModels) NewClient(_ context.Context, spec starhost.ClientSpec) (starhost.ModelClient, error) {
	return upperClient{model: spec.Facts.Model}, nil
}

type upperClient struct{ model string }

func (c upperClient) Complete(_ context.Context, req starhost.ModelRequest) (starhost.ModelReply, error) {
	last := req.Messages[len(req.Messages)-1].Content
	return starhost.ModelReply{Text: c.model + ": " + strings.ToUpper(last), OutputTokens: 1}, nil
}

// An agent host publishes its session facts and supplies model clients; a
// plugin with the models capability reads the live view and calls the
// session model. Every plugin model call is reported apart from turns.
func ExampleSession_SetModel() {
	h, cleanup := startExampleHost(starhost.Options{
		Models:     upperModels{},
		ModelCalls: func(c starhost.ModelCall) { fmt.Printf("model call by %s: %s/%s\n", c.Plugin, c.Provider, c.Model) },
	}, map[string]string{
		"plugin.toml": "id = \"acme.shout\"\nversion = \"1.0.0\"\ncapabilities = [\"models\"]\n",
		"plugin.star": `def shout(ctx, args):
    return "%s (thinking %s)" % (ctx.models.session.complete(args["text"]), ctx.session.thinking)

contribute(tools = [tool(name = "shout", catalogs = "work", run = shout)])
`,
	})
	defer cleanup()

	s, _ := h.NewSession(context.Background(), starhost.SessionOptions{}) // one agent session
	s.SetModel(starhost.ModelFacts{Provider: "acme", Protocol: "openai", Model: "gpt-x", Thinking: "High"})
	res := s.Thread("").Tools(context.Background(), starhost.Work).Invoke(context.Background(), "shout", json.RawMessage(`{"text": "hello"}`))
	fmt.Println(res.Text)

	s.SetModel(starhost.ModelFacts{Provider: "acme", Protocol: "openai", Model: "gpt-y"})
	res = s.Thread("").Tools(context.Background(), starhost.Work).Invoke(context.Background(), "shout", json.RawMessage(`{"text": "again"}`))
	fmt.Println(res.Text)
	// Output:
	// model call by acme.shout: acme/gpt-x
	// gpt-x: HELLO (thinking high)
	// model call by acme.shout: acme/gpt-y
	// gpt-y: AGAIN (thinking default)
}
