package models_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/crystal-star/crystal-star/starhost/models"
	"github.com/crystal-star/crystal-star/starhost/models/modelfake"
)

// A built-in adapter builds a client from a providers.json entry; its
// failures carry a stable code naming provider and model.
func Example() {
	srv := modelfake.Start() // stands in for the provider
	defer srv.Close()
	ps, err := models.ParseProviders("providers.json", []byte(`{"providers": [{"name": "claude", "protocol": "anthropic",
		"endpoint": "`+srv.Endpoint("anthropic")+`", "models": [{"name": "sonnet"}, {"name": "fail"}]}]}`))
	if err != nil {
		panic(err)
	}
	ask := func(spec string) {
		p, m, _ := ps.Lookup(spec)
		ad, _ := models.Registered().Lookup(p.Protocol)
		c, err := ad.NewClient(context.Background(), models.ClientConfig{Provider: p, Model: m,
			Facts: models.Facts{Provider: p.Name, Model: m.Name}, APIKey: p.APIKey()})
		if err != nil {
			panic(err)
		}
		reply, err := c.Complete(context.Background(), models.Request{Messages: []models.Message{
			{Role: "system", Content: "Answer briefly."}, {Role: "user", Content: "hello"}}})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(reply.Text)
	}
	ask("claude/sonnet")
	ask("claude/fail")
	// Output:
	// echo sonnet effort=- tier=- max=4096 images=0 msgs=2: hello
	// unauthorized: claude/fail: the provider rejected the API key (HTTP 401: invalid api key)
}

// shout is an embedder's adapter for a protocol of its own.
type shout struct{}

func (shout) Protocol() string { return "shout" }

func (shout) NewClient(_ context.Context, cfg models.ClientConfig) (models.Client, error) {
	return shoutClient{}, nil
}

type shoutClient struct{}

func (shoutClient) Complete(_ context.Context, req models.Request) (models.Reply, error) {
	return models.Reply{Text: strings.ToUpper(req.Messages[len(req.Messages)-1].Content)}, nil
}

// An embedder registers an adapter for a new protocol (starhost takes them
// in Options.Adapters); it is used like the built-in ones.
func ExampleAdapters_Register() {
	set := models.Registered()
	if err := set.Register(shout{}); err != nil {
		panic(err)
	}
	fmt.Println(set.Protocols())
	ad, _ := set.Lookup("SHOUT")
	c, _ := ad.NewClient(context.Background(), models.ClientConfig{})
	reply, _ := c.Complete(context.Background(), models.Request{Messages: []models.Message{{Role: "user", Content: "hi"}}})
	fmt.Println(reply.Text)
	// Output:
	// [anthropic deepseek gemini ollama openai responses shout]
	// HI
}
