package main

import (
	"fmt"

	"github.com/crystal-star/crystal-star/starhost"
)

// cliClassifications is the CLI's built-in classification of its built-in
// tools (CC10): plugin classifiers are never asked about these names.
var cliClassifications = map[string]starhost.Classification{
	"read":  {Risk: "low", Permission: "allow"},
	"grep":  {Risk: "low", Permission: "allow"},
	"glob":  {Risk: "low", Permission: "allow"},
	"skill": {Risk: "low", Permission: "allow"},
	"write": {Risk: "medium", Permission: "ask"},
	"edit":  {Risk: "medium", Permission: "ask"},
	"bash":  {Risk: "high", Permission: "ask"},
}

// modelCall prints one plugin model call on stderr, apart from notes: it is
// not a turn (CC24).
func (e *env) modelCall(m starhost.ModelCall) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if m.Err != "" {
		fmt.Fprintf(e.stderr, "model call: %s %s %s/%s failed in %s: %s\n", m.Plugin, m.Role, m.Provider, m.Model, round(m.Elapsed), m.Err)
		return
	}
	fmt.Fprintf(e.stderr, "model call: %s %s %s/%s in %s (%d in, %d out)\n", m.Plugin, m.Role, m.Provider, m.Model, round(m.Elapsed), m.InputTokens, m.OutputTokens)
}
