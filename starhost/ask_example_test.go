package starhost_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/crystal-star/crystal-star/starhost"
)

// Questions to the person: a tool asks with ctx.ask, and the embedder's
// Options.Ask answers — a form in its UI, here a fixed answer. Without an
// answerer every question is declined and the tool gets None.
func ExampleAskFunc() {
	ask := func(_ context.Context, q starhost.Question) (starhost.Answer, error) {
		fmt.Printf("%s asks %q, fields %v\n", q.Plugin, q.Message, q.Fields)
		return starhost.Answer{Action: starhost.AnswerAccept, Content: map[string]any{"env": "staging"}}, nil
	}
	h, cleanup := startExampleHost(starhost.Options{Ask: ask}, map[string]string{
		"plugin.toml": "id = \"acme.deploy\"\nversion = \"1.0.0\"\n",
		"plugin.star": `def deploy(ctx, args):
    answer = ctx.ask("Deploy where?", {
        "type": "object",
        "properties": {
            "env": {"type": "string", "enum": ["staging", "production"]},
            "replicas": {"type": "integer", "default": 2},
        },
        "required": ["env"],
    })
    if answer == None:
        return "not deployed"
    return "deploying to " + answer["env"]

contribute(tools = [tool(name = "deploy", catalogs = "work", run = deploy)])
`,
	})
	defer cleanup()
	ctx := context.Background()
	res := h.Tools(ctx, "", starhost.Work).Invoke(ctx, "deploy", json.RawMessage(`{}`))
	fmt.Println(res.Text)
	// Output:
	// acme.deploy asks "Deploy where?", fields [env replicas]
	// deploying to staging
}
