package contrib

import (
	"encoding/json"
	"errors"
)

// Staging collects one plugin's contributions while its module executes
// (AT1). Every entry is validated as it arrives; an invalid entry is left out
// and becomes a diagnostic pointing at the constructor call (CC2, DC5).
// Nothing staged is visible to anyone until the lifecycle publishes Set. A
// Staging is used by one goroutine.
type Staging struct {
	plugin   string
	tools    nameSet
	commands nameSet
	holders  nameSet
	seen     map[string]bool // tool names already staged, folded
	set      Set
}

// NewStaging starts an empty staged set for plugin under the host's rules.
func NewStaging(plugin string, rules Rules) *Staging {
	return &Staging{
		plugin:   plugin,
		tools:    newNameSet(rules.BuiltinTools),
		commands: newNameSet(rules.BuiltinCommands),
		holders:  newNameSet(rules.HostPlaceholders),
		seen:     map[string]bool{},
		set:      Set{Plugin: plugin},
	}
}

// Report records a diagnostic for this plugin.
func (s *Staging) Report(code Code, pos Pos, format string, args ...any) {
	s.set.Diagnostics = append(s.set.Diagnostics, Diag(code, s.plugin, pos, format, args...))
}

// reportSchema reports a ToolSchemaInvalid of a tool's parameters with
// the pointer of err's first problem, when err is a SchemaError.
func (s *Staging) reportSchema(err error, pos Pos, format string, args ...any) {
	d := Diag(ToolSchemaInvalid, s.plugin, pos, format, args...)
	if se, ok := errors.AsType[*SchemaError](err); ok {
		d.Pointer = se.Pointer()
	}
	s.set.Diagnostics = append(s.set.Diagnostics, d)
}

// AddTool validates t (CC4, CC5, DC5) and stages it, compiling its schema.
func (s *Staging) AddTool(t Tool) {
	if err := CheckToolName(t.Name); err != nil {
		s.Report(ToolNameInvalid, t.Pos, "tool name %q %v; the tool is left out", t.Name, err)
		return
	}
	switch {
	case s.tools.has(t.Name):
		s.Report(toolNameReserved, t.Pos, "tool name %q is a built-in tool; the tool is left out", t.Name)
		return
	case s.seen[fold(t.Name)]:
		s.Report(ToolDuplicate, t.Pos, "tool %q is declared twice in this plugin; the later one is left out", t.Name)
		return
	case t.Catalogs == 0:
		s.Report(toolNoCatalog, t.Pos, "tool %q names no catalog; the tool is left out", t.Name)
		return
	}
	if t.Namespace != "" {
		if err := checkNamespace(t.Namespace); err != nil {
			s.Report(toolNamespaceInvalid, t.Pos, "tool %q: namespace %q %v; the tool is left out", t.Name, t.Namespace, err)
			return
		}
	}
	sch, err := CompileSchema(t.Parameters)
	if err != nil {
		s.reportSchema(err, t.Pos, "tool %q has invalid parameters: %v; the tool is left out", t.Name, err)
		return
	}
	if len(t.Parameters) == 0 {
		t.Parameters = json.RawMessage(`{"type":"object"}`)
	}
	t.schema = sch
	if len(t.OutputSchema) > 0 {
		var typ struct {
			Type any `json:"type"`
		}
		if json.Unmarshal(t.OutputSchema, &typ) != nil || typ.Type != "object" {
			// MCP's structuredContent is an object, so is what a schema describes.
			err = errors.New(`want a schema of "type": "object"`)
		} else {
			t.outSchema, err = CompileSchema(t.OutputSchema)
		}
		if err != nil {
			// No Pointer: it would point into output_schema, and the note is
			// placed by the parameters' (builtins.SchemaErrorPos).
			s.Report(ToolSchemaInvalid, t.Pos, "tool %q has an invalid output_schema: %v; the tool is left out", t.Name, err)
			return
		}
	}
	s.seen[fold(t.Name)] = true
	s.set.Tools = append(s.set.Tools, t)
}

// AddCommand validates c's name and aliases (CC11) and stages it. An alias
// that breaks a rule is dropped on its own; a bad name drops the command.
func (s *Staging) AddCommand(c Command) {
	if err := CheckToolName(c.Name); err != nil {
		s.Report(commandNameInvalid, c.Pos, "command name %q %v; the command is left out", c.Name, err)
		return
	}
	if s.commands.has(c.Name) {
		s.Report(commandShadowed, c.Pos, "command /%s is a built-in verb, which always wins; the command is left out", c.Name)
		return
	}
	aliases := c.Aliases[:0:0]
	for _, a := range c.Aliases {
		switch err := CheckToolName(a); {
		case err != nil:
			s.Report(commandNameInvalid, c.Pos, "alias %q of /%s %v; the alias is left out", a, c.Name, err)
		case s.commands.has(a):
			s.Report(commandShadowed, c.Pos, "alias /%s of /%s is a built-in verb; the alias is left out", a, c.Name)
		default:
			aliases = append(aliases, a)
		}
	}
	c.Aliases = aliases
	s.set.Commands = append(s.set.Commands, c)
}

// AddPlaceholder validates p's name (CC12) and stages it.
func (s *Staging) AddPlaceholder(p Placeholder) {
	if err := CheckPlaceholderName(p.Name); err != nil {
		s.Report(placeholderNameInvalid, p.Pos, "placeholder name %q %v; the placeholder is left out", p.Name, err)
		return
	}
	if s.holders.has(p.Name) {
		s.Report(placeholderReserved, p.Pos, "placeholder {{%s}} is owned by the host; the placeholder is left out", p.Name)
		return
	}
	for _, q := range s.set.Placeholders {
		if fold(q.Name) == fold(p.Name) {
			s.Report(placeholderTaken, p.Pos, "placeholder {{%s}} is declared twice in this plugin; the later one is left out", p.Name)
			return
		}
	}
	s.set.Placeholders = append(s.set.Placeholders, p)
}

// AddStatusField stages a status field declaration. Its admission (CC15)
// happens when the generation is published, against the host's board.
func (s *Staging) AddStatusField(f StatusField) {
	s.set.StatusFields = append(s.set.StatusFields, f)
}

// Set returns the staged set. The caller must not stage more afterwards.
func (s *Staging) Set() *Set { return &s.set }
