package plugintest_test

import (
	"fmt"
	"log"
	"time"

	"github.com/crystal-star/crystal-star/starhost/plugintest"
)

// In a test, plugintest.NewHost(t, dir, opts) does what Start does and
// fails the test with the plugin's diagnostics when it does not activate;
// the examples use Start because they have no *testing.T.

// Start a host over a plugin directory and call one of its tools.
func ExampleStart() {
	h, err := plugintest.Start("../../plugins/review", plugintest.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()
	fmt.Println(h.Plugin().ID, h.Plugin().State)
	res := h.Call("review_summary", `{"text": "  Looks   good to me  "}`)
	fmt.Println(string(res.Data))
	// Output:
	// acme.review active
	// {"summary":"Looks good to me","words":4,"truncated":false}
}

// A plugin that does not activate is an error with its diagnostics, at
// file:line:col of the plugin's own files.
func ExampleStart_activationFails() {
	_, err := plugintest.Start("testdata/broken", plugintest.Options{})
	fmt.Println(err)
	// Output:
	// plugin acme.broken did not activate: it is faulted
	//   testdata/broken/plugin.star:3:15: error: acme.broken: module: floored division by zero [ExecutionFailed]
}

// A tool error carries its stable code.
func ExampleHost_Call() {
	h, err := plugintest.Start("../../plugins/review", plugintest.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()
	res := h.Call("review_summary", `{"text": "   "}`)
	fmt.Println(res.Error.Code, res.Error.Message)
	// Output: empty_text text is empty
}

// Expand a plugin command into this turn's input.
func ExampleHost_Expand() {
	h, err := plugintest.Start("../../plugins/review", plugintest.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()
	text, ok, err := h.Expand("triage", "backend")
	fmt.Println(text, ok, err)
	// Output: Summarize the review queue backend and list the three most urgent items. true <nil>
}

// Bind a placeholder; with Options.Model the session model is the fake one.
func ExampleHost_Bind() {
	h, err := plugintest.Start("../../plugins/review", plugintest.Options{Model: true})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()
	fmt.Println(h.Bind("Reviewed by {{review_model}}."))
	// Output: Reviewed by fake.
}

// Read the status line; timers run when the manual clock advances.
func ExampleHost_StatusLine() {
	h, err := plugintest.Start("../../plugins/queue", plugintest.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()
	h.Call("queue_add", `{"item": "docs"}`)
	fmt.Println(h.StatusLine())
	fmt.Println(h.Advance(2*time.Second), "ticks")
	fmt.Println(h.StatusLine())
	// Output:
	// 1 open
	// 2 ticks
	// 1 open · oldest waited 2 ticks
}

// Dispatch a tool call through the hooks: plugins/guard rewrites a
// destructive shell command before it runs.
func ExampleHost_Dispatch() {
	h, err := plugintest.Start("../../plugins/guard", plugintest.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()
	res := h.Dispatch("bash", `{"command": "rm -rf build"}`)
	fmt.Println(res.Call.Name, string(res.Call.Arguments))
	// Output: bash {"command":"echo \"acme.guard refused: rm -rf build\""}
}

// Edit the plugin's copy and reload it; a source that does not compile is
// an error and the old generation still serves.
func ExampleHost_Reload() {
	h, err := plugintest.Start("testdata/counter", plugintest.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()
	fmt.Println(h.Plugin().Generation, h.Call("count", "").Text)
	_ = h.WriteFile("plugin.star", `contribute(tools = [tool(name = "count", catalogs = "work", run = lambda ctx, args: "two")])`)
	fmt.Println(h.Reload(), h.Plugin().Generation, h.Call("count", "").Text)
	_ = h.WriteFile("plugin.star", `contribute(tools = [`)
	fmt.Println(h.Reload() != nil, h.Call("count", "").Text)
	// Output:
	// g1 one
	// <nil> g2 two
	// true two
}

// A fake model with scripted replies answers the plugin's model calls and
// records the requests.
func ExampleNewFakeModel() {
	h, err := plugintest.Start("../../plugins/notes", plugintest.Options{Replies: []string{"One note about releases."}})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()
	h.Call("note_add", `{"text": "ship the release"}`)
	fmt.Println(string(h.Call("note_summarize", "").Data))
	fmt.Println(len(h.Model.Requests()), h.Model.Requests()[0].Path)
	// Output:
	// {"summary":"One note about releases.","notes":1,"model":"fake/fake"}
	// 1 /v1/chat/completions
}
