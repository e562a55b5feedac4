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
// Three handles split the API. The Host is the workspace's: discovery,
// generations, the watcher, trust, configuration. Host.NewSession makes a
// Session per agent session — its facts, models, status values and End —
// and a Session hands out a Thread per conversation. A call made through a
// handle carries its session on its context, so every callback it runs
// sees that session's facts; where no session is served (attach, timers)
// callbacks see the host's defaults (Options.Defaults).
//
// An agent loop calls its Thread at the moments of a turn. Tools(ctx,
// catalog) hands out a frozen ToolSnapshot to offer the model (package
// starhost/toolwire converts its List() and the model's calls and answers
// to each protocol's wire shape); Dispatch runs a tool call
// with the host's policy — hooks, classification, approval — while
// ToolSnapshot.Invoke runs it bare. Session.Expand and ExecuteCommand serve
// slash commands, Bind fills {{placeholders}}, AssemblePrompt and
// PrepareModelCall shape what is sent, and the thread and turn methods run
// the hooks of their moment. Subscribe reports every change of what the
// host offers with a generation counter, so a host rebuilds what it
// captured.
//
// The route of one tool call reads top to bottom in Host.dispatch
// (dispatch.go), one method per step:
//  1. the handle binds its session to ctx; arguments get the {} rule once;
//  2. startDispatch: the thread's tools for the mode (toolsFor), its stages;
//  3. validate: unknown_tool, invalid_arguments; arguments decoded once;
//  4. decide: classification (Classify's table, classifiers, tool hints);
//  5. decide: policy (dispatch_policy), approval hooks, dispatch_approval;
//  6. rewrite: tool_call hooks; a rewritten call is checked again (HK2);
//  7. invoke: the Invoker's own tools, else the snapshot, on those arguments;
//  8. invoke: ForModel's adaptation to the model, then tool_result hooks;
//  9. record: dispatch_recorder, then dispatch_normalizer (a fold);
//  10. finish: the result converted once to the embedder's ToolResult.
//
// Failures speak one vocabulary: a Code. Every error the host returns is a
// Code or wraps one, and a failed ToolResult's Err() matches its code with
// errors.Is. A Session holds the session and review facts plugins read, and
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
