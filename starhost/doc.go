// Package starhost is the embeddable plugin host: the one package an agent
// host imports. Everything the crystal-star CLI shows is available here; the
// CLI has no private powers.
//
// A Host is made with New and served between Start and Close. Start
// discovers the plugin roots (home, workspace, builtin, dev), admits what
// the operator trusted, activates each plugin and attaches it; one bad
// plugin is a Note and an Event, never a failed Start. Watch (or Reload)
// then replaces a plugin's generation make-before-break when its files
// change: the next generation is built beside the serving one and switched
// in one step, and any failure keeps the previous one serving.
//
// An agent loop calls the host at the moments of a turn. Tools(ctx, thread,
// catalog) hands out a frozen ToolSnapshot to offer the model (OpenAITools,
// AnthropicTools and MCPTools convert its List()); Dispatch runs a tool call
// with the host's policy — hooks, classification, approval — while
// ToolSnapshot.Invoke runs it bare. Expand and ExecuteCommand serve slash
// commands, Bind fills {{placeholders}}, AssemblePrompt and
// PrepareModelCall shape what is sent, and the thread and turn methods run
// the hooks of their moment. Subscribe reports every change of what the
// host offers with a generation counter, so a host rebuilds what it
// captured.
//
// Failures speak one vocabulary: a Code. Every error the host returns is a
// Code or wraps one, and a failed ToolResult's Err() matches its code with
// errors.Is. Session holds the session and review facts plugins read, and
// Operator the operator's actions (trust grants, enable, install). Model
// clients for plugins come from {home}/providers.json through the built-in
// adapters the program imports (each protocol is a package under
// starhost/models that registers itself: import _
// "github.com/crystal-star/crystal-star/starhost/models/builtin" for all
// six), an embedder's ModelAdapter, or plugins' client factories; API keys
// never reach plugin code, notes or errors. starhost links no adapter, no
// net/http and no formatter (starhost/format) of its own.
//
// docs/embedding.md walks through a complete agent loop (cmd/agentloop);
// docs/contract.md maps the contract's rules to the code and tests.
package starhost
