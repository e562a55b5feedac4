package starhost

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/internal/layout"
	"github.com/crystal-star/crystal-star/internal/safefile"
	"github.com/crystal-star/crystal-star/internal/tomlpos"
)

// Config is the layered configuration: {home}/config.toml, then
// <workspace>/.crystal/config.toml over it. Unknown keys are a warning note,
// not a failure. Trust is never configured here (DC19).
type Config struct {
	Plugins    bool     `toml:"plugins"`
	Disabled   []string `toml:"disabled"`
	StatusLine []string `toml:"status_line"`
	// StatusLineOff hides the operator's line without forgetting it
	// (/statusline off).
	StatusLineOff bool   `toml:"status_line_off"`
	Model         string `toml:"model"`
	ReviewModel   string `toml:"review_model"`
	Thinking      string `toml:"thinking"`
	// ServiceTier and Speed are the session model's tier and speed
	// (/tier, /speed); "" leaves them unset.
	ServiceTier string `toml:"service_tier"`
	Speed       string `toml:"speed"`
	Skills      bool   `toml:"skills"`
	// MemoryLimit and CallbackTimeout are the limits as written
	// ("512MiB", "30s"); Limits holds them in effect.
	MemoryLimit     string `toml:"memory_limit"`
	CallbackTimeout string `toml:"callback_timeout"`
	// AskTimeout is ask_timeout as written ("5m"); Limits.AskTimeout
	// holds it in effect.
	AskTimeout string `toml:"ask_timeout"`
	// StepBudget is step_budget as written (0: not set); Limits.StepBudget
	// holds the budget in effect, PluginStepBudget the [plugins."id"]
	// step_budget overrides in effect.
	StepBudget       int64             `toml:"step_budget"`
	PluginStepBudget map[string]uint64 `toml:"-"`
	Limits           Limits            `toml:"-"`
	// Isolation is "in_process", "process", or "" when no layer set it
	// (Options.Isolation then decides); PluginIsolation holds the
	// [plugins."id"] isolation overrides (docs/isolation.md).
	Isolation       string            `toml:"isolation"`
	PluginIsolation map[string]string `toml:"-"`
	// Workers is how many worker processes share the plugins of process
	// isolation (0: one per plugin; nil: not set, see Host.workerCount).
	Workers *int `toml:"workers"`
	// ToolSets are the external tool sets (MCP servers, MC7), from the home
	// layer only: a workspace may not start processes (docs/mcp.md).
	ToolSets map[string]ToolSetConfig `toml:"tool_sets"`
	// Executors are the remote tool executors of {home}/config.toml
	// ([executors.NAME], docs/remote.md); a workspace config.toml may not
	// declare them (WorkspaceToolSetIgnored), as for tool sets.
	Executors map[string]ExecutorConfig `toml:"executors"`
	// PluginExecute maps a plugin id to the executors its remote tools
	// run on ([plugins."id"] execute = "NAME" or a list), from the home
	// config.toml only.
	PluginExecute map[string][]string `toml:"-"`
}

// layer is one config file as read, with the keys it set.
type layer struct {
	path string
	data []byte
	md   toml.MetaData
	cfg  Config
	file fileLayer
}

// loadConfig reads the two layers. A missing file is empty; an unreadable
// one is a note and is skipped (never rewritten).
func loadConfig(home, workspace string, base Limits, note func(contrib.Diagnostic)) Config {
	cfg := Config{Plugins: true, Skills: true, Thinking: "default", Limits: base}
	for i, path := range (layout.Paths{Home: home, Workspace: workspace}).ConfigLayers() {
		l, err := readLayer(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			note(contrib.Diag(contrib.ConfigUnreadable, "", contrib.Pos{File: path}, "config %s is unreadable: %v; a host does not start while it is, and a running host ignores it", path, err))
			continue
		}
		for _, k := range l.md.Undecoded() {
			code, msg := contrib.ConfigUnknownKey, "unknown config key "+k.String()+" is ignored"
			if len(k) == 1 {
				msg += contrib.DidYouMean(k[0], configKeys())
			}
			if strings.Contains(strings.ToLower(k.String()), "trust") {
				code, msg = contrib.WorkspaceTrustIgnored, "config key "+k.String()+" is ignored: trust is granted only in the home trust file"
			}
			note(contrib.Diag(code, "", l.pos(k.String()), "%s", msg))
		}
		if i == 0 {
			cfg.ToolSets = l.cfg.ToolSets
			cfg.Executors, cfg.PluginExecute = l.cfg.Executors, executeSettings(l)
		} else {
			ignoreWorkspaceToolSets(l, home, note)
			ignoreWorkspaceExecutors(l, home, note)
		}
		merge(&cfg, l)
		mergeLimits(&cfg, l, i == 1, note)
		mergeIsolation(&cfg, l, i == 1, note)
	}
	return cfg
}

// configKeys are the top-level keys of a config.toml layer: the toml names
// of fileLayer's fields, for the "did you mean" of a misspelled one.
var configKeys = sync.OnceValue(func() []string {
	var keys []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for f := range t.Fields() {
			if f.Anonymous {
				walk(f.Type)
				continue
			}
			if name, _, _ := strings.Cut(f.Tag.Get("toml"), ","); name != "" && name != "-" {
				keys = append(keys, name)
			}
		}
	}
	walk(reflect.TypeFor[fileLayer]())
	return keys
})

// pos is where the layer writes key (dotted, as diagnostics print it).
func (l *layer) pos(key string) contrib.Pos {
	line, col := tomlpos.Position(l.data, tomlpos.SplitKey(key))
	return contrib.Pos{File: l.path, Line: line, Col: col}
}

func readLayer(path string) (*layer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	l := &layer{path: path, data: data}
	l.md, err = toml.Decode(string(data), &l.file)
	l.cfg = l.file.Config
	l.cfg.Plugins = l.file.Plugins.On
	return l, err
}

func merge(dst *Config, l *layer) {
	set := func(key string) bool { return l.md.IsDefined(key) }
	if set("plugins") {
		dst.Plugins = l.cfg.Plugins
	}
	if set("disabled") {
		dst.Disabled = slices.Concat(dst.Disabled, l.cfg.Disabled)
	}
	if set("status_line") {
		dst.StatusLine = l.cfg.StatusLine
	}
	if set("status_line_off") {
		dst.StatusLineOff = l.cfg.StatusLineOff
	}
	if set("model") {
		dst.Model = l.cfg.Model
	}
	if set("review_model") {
		dst.ReviewModel = l.cfg.ReviewModel
	}
	if set("thinking") {
		dst.Thinking = l.cfg.Thinking
	}
	if set("service_tier") {
		dst.ServiceTier = l.cfg.ServiceTier
	}
	if set("speed") {
		dst.Speed = l.cfg.Speed
	}
	if set("skills") {
		dst.Skills = l.cfg.Skills
	}
}

// Config returns the configuration as last read.
func (h *Host) Config() Config {
	if c := h.config.Load(); c != nil {
		return *c
	}
	return Config{Plugins: true, Skills: true, Thinking: "default"}
}

// reloadConfig reads both layers again.
// A layer that exists but cannot be read is remembered, so Start can refuse
// to serve without it.
func (h *Host) reloadConfig() {
	var unreadable *contrib.Diagnostic
	c := loadConfig(h.opts.Home, h.opts.Workspace, h.baseLimits(), func(d contrib.Diagnostic) {
		if d.Code == contrib.ConfigUnreadable && unreadable == nil {
			unreadable = &d
		}
		h.note(d)
	})
	h.config.Store(&c)
	h.life.unreadable.Store(unreadable)
}

// configPath returns the config file of one layer.
func (h *Host) configPath(project bool) string {
	return h.paths().Config(project)
}

// editConfig changes one config layer under a cross-process lock: the file
// is re-read inside the lock, changed by edit, and written atomically. An
// unreadable file is never overwritten. edit reports whether it changed
// anything.
func (h *Host) editConfig(project bool, edit func(map[string]any) bool) (bool, error) {
	path := h.configPath(project)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, codeErrorf(ErrNotApplied, "config %s was not changed: %w", path, err)
	}
	changed, err := safefile.Edit(path, 0o644, func(data []byte) ([]byte, bool, error) {
		doc := map[string]any{}
		if _, err := toml.Decode(string(data), &doc); err != nil {
			return nil, false, codeErrorf(Code(contrib.ConfigUnreadable), "config %s is unreadable and was not changed: %w", path, err)
		}
		if !edit(doc) {
			return nil, false, nil
		}
		var buf bytes.Buffer
		err := toml.NewEncoder(&buf).Encode(doc)
		return buf.Bytes(), err == nil, err
	})
	if changed {
		h.reloadConfig()
	}
	switch {
	case err == nil:
	case errors.Is(err, Code(contrib.ConfigUnreadable)):
		err = withCode(err, ErrNotApplied)
	default:
		err = codeErrorf(ErrNotApplied, "config %s was not changed: %w", path, err)
	}
	return changed, err
}

// stringList reads a TOML array of strings from doc.
func stringList(doc map[string]any, key string) []string {
	var out []string
	if list, ok := doc[key].([]any); ok {
		for _, v := range list {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}
