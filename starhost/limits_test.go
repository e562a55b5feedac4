package starhost_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/starhost"
)

// memory_limit, callback_timeout and step_budget (issue 26 point 7): Options are the embedder's defaults,
// {home}/config.toml overrides them, the workspace layer may only lower
// them, and a value that does not parse is a diagnostic that keeps the
// previous one.
func TestLimitsLayering(t *testing.T) {
	for _, c := range []struct {
		name, home, work string
		opts             starhost.Options
		want             starhost.Limits
		note             string
	}{
		{name: "defaults", want: starhost.Limits{MemoryLimit: 512 << 20, CallbackTimeout: 30 * time.Second, StepBudget: 100_000_000}},
		{name: "options", opts: starhost.Options{MemoryLimit: 1 << 30, CallbackTimeout: time.Minute},
			want: starhost.Limits{MemoryLimit: 1 << 30, CallbackTimeout: time.Minute, StepBudget: 100_000_000}},
		{name: "home overrides options", home: "memory_limit = \"64MiB\"\ncallback_timeout = \"5s\"\n", opts: starhost.Options{MemoryLimit: 1 << 30},
			want: starhost.Limits{MemoryLimit: 64 << 20, CallbackTimeout: 5 * time.Second, StepBudget: 100_000_000}},
		{name: "workspace lowers", home: "memory_limit = \"64MiB\"\n", work: "memory_limit = \"32MiB\"\ncallback_timeout = \"1s\"\n",
			want: starhost.Limits{MemoryLimit: 32 << 20, CallbackTimeout: time.Second, StepBudget: 100_000_000}},
		{name: "workspace cannot raise", home: "callback_timeout = \"5s\"\n", work: "callback_timeout = \"1h\"\n",
			want: starhost.Limits{MemoryLimit: 512 << 20, CallbackTimeout: 5 * time.Second, StepBudget: 100_000_000}, note: "callback_timeout: a workspace config may lower the limit, not raise it; 5s stays in effect [ConfigValueInvalid]"},
		{name: "bad value", home: "memory_limit = \"lots\"\n",
			want: starhost.Limits{MemoryLimit: 512 << 20, CallbackTimeout: 30 * time.Second, StepBudget: 100_000_000}, note: `memory_limit: "lots" is not a size`},
		{name: "step_budget from options", opts: starhost.Options{Steps: 5000},
			want: starhost.Limits{MemoryLimit: 512 << 20, CallbackTimeout: 30 * time.Second, StepBudget: 5000}},
		{name: "step_budget in home overrides options", home: "step_budget = 1_000_000_000\n", opts: starhost.Options{Steps: 5000},
			want: starhost.Limits{MemoryLimit: 512 << 20, CallbackTimeout: 30 * time.Second, StepBudget: 1_000_000_000}},
		{name: "workspace lowers step_budget", home: "step_budget = 300_000_000\n", work: "step_budget = 1_000\n",
			want: starhost.Limits{MemoryLimit: 512 << 20, CallbackTimeout: 30 * time.Second, StepBudget: 1000}},
		{name: "workspace cannot raise step_budget", work: "step_budget = 300_000_000\n",
			want: starhost.Limits{MemoryLimit: 512 << 20, CallbackTimeout: 30 * time.Second, StepBudget: 100_000_000},
			note: "step_budget: a workspace config may lower the budget, not raise it; 100000000 stays in effect [ConfigValueInvalid]"},
		{name: "workspace step_budget not positive", home: "step_budget = 1_000_000\n", work: "step_budget = -5\n",
			want: starhost.Limits{MemoryLimit: 512 << 20, CallbackTimeout: 30 * time.Second, StepBudget: 1_000_000},
			note: "step_budget: -5 is not a positive number of steps; the value is ignored [ConfigValueInvalid]"},
		// ask_timeout (issue 29.4): its own limit, layered like the others.
		{name: "ask_timeout in home", home: "ask_timeout = \"10m\"\n",
			want: starhost.Limits{MemoryLimit: 512 << 20, CallbackTimeout: 30 * time.Second, StepBudget: 100_000_000, AskTimeout: 10 * time.Minute}},
		{name: "ask_timeout from options", opts: starhost.Options{AskTimeout: time.Minute},
			want: starhost.Limits{MemoryLimit: 512 << 20, CallbackTimeout: 30 * time.Second, StepBudget: 100_000_000, AskTimeout: time.Minute}},
		{name: "workspace lowers ask_timeout", work: "ask_timeout = \"30s\"\n",
			want: starhost.Limits{MemoryLimit: 512 << 20, CallbackTimeout: 30 * time.Second, StepBudget: 100_000_000, AskTimeout: 30 * time.Second}},
		{name: "workspace cannot raise ask_timeout", work: "ask_timeout = \"1h\"\n",
			want: starhost.Limits{MemoryLimit: 512 << 20, CallbackTimeout: 30 * time.Second, StepBudget: 100_000_000},
			note: "ask_timeout: a workspace config may lower the limit, not raise it; 5m0s stays in effect [ConfigValueInvalid]"},
		{name: "bad ask_timeout", home: "ask_timeout = \"soon\"\n",
			want: starhost.Limits{MemoryLimit: 512 << 20, CallbackTimeout: 30 * time.Second, StepBudget: 100_000_000},
			note: `ask_timeout: "soon" is not a positive duration such as "5m"; 5m0s stays in effect`},
		{name: "zero duration", home: "callback_timeout = \"0s\"\n",
			want: starhost.Limits{MemoryLimit: 512 << 20, CallbackTimeout: 30 * time.Second, StepBudget: 100_000_000}, note: `callback_timeout: "0s" is not a positive duration such as "30s" or "2m"; 30s stays in effect`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			write := func(path, data string) {
				if data == "" {
					return
				}
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write(filepath.Join(dir, "home", "config.toml"), c.home)
			write(filepath.Join(dir, "work", ".crystal", "config.toml"), c.work)
			var mu sync.Mutex
			var notes []string
			c.opts.Home, c.opts.Workspace = filepath.Join(dir, "home"), filepath.Join(dir, "work")
			c.opts.Notes = func(n starhost.Note) { mu.Lock(); notes = append(notes, n.String()); mu.Unlock() }
			h, err := starhost.New(c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if c.want.AskTimeout == 0 {
				c.want.AskTimeout = starhost.DefaultAskTimeout
			}
			if got := h.Config().Limits; got != c.want {
				t.Errorf("limits %+v, want %+v", got, c.want)
			}
			all := strings.Join(notes, "\n")
			if c.note != "" && !strings.Contains(all, c.note) {
				t.Errorf("notes %q do not contain %q", all, c.note)
			}
			if c.note == "" && all != "" {
				t.Errorf("unexpected notes: %s", all)
			}
		})
	}
}

// Issue 26 point 7: [plugins."id"] step_budget sets one plugin's budget;
// a workspace's global step_budget lowers every plugin's to at most its
// value, and a workspace may not raise a plugin's own.
func TestH26_7_PluginStepBudgetLayering(t *testing.T) {
	dir := t.TempDir()
	write := func(path, data string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "home", "config.toml"), "step_budget = 1000\n\n[plugins.\"acme.big\"]\nstep_budget = 900_000\n\n[plugins.\"acme.mid\"]\nstep_budget = 5000\n")
	write(filepath.Join(dir, "work", ".crystal", "config.toml"), "step_budget = 500\n\n[plugins.\"acme.mid\"]\nstep_budget = 800\n\n[plugins.\"acme.big\"]\nstep_budget = 400\n")
	var notes []string
	var mu sync.Mutex
	h, err := starhost.New(starhost.Options{Home: filepath.Join(dir, "home"), Workspace: filepath.Join(dir, "work"),
		Notes: func(n starhost.Note) { mu.Lock(); notes = append(notes, n.String()); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	c := h.Config()
	// The workspace's 500 caps acme.mid's 5000, so its 800 would raise it.
	want := map[string]uint64{"acme.big": 400, "acme.mid": 500}
	for id, n := range want {
		if got := c.PluginStepBudget[id]; got != n {
			t.Errorf("%s: step budget %d, want %d", id, got, n)
		}
	}
	if c.Limits.StepBudget != 500 {
		t.Errorf("global step budget %d, want 500", c.Limits.StepBudget)
	}
	all := strings.Join(notes, "\n")
	if !strings.Contains(all, `plugins."acme.mid".step_budget: a workspace config may lower the budget, not raise it; 500 stays in effect [ConfigValueInvalid]`) {
		t.Errorf("notes %q: want the refused raise of acme.mid", all)
	}
}

// Issue 26 point 7: a workspace step_budget between the home global budget
// and a plugin's own home budget is a cap, not a raise: the plugin runs
// under the cap, the others keep the home global budget, and nothing is
// warned.
func TestH26_7_WorkspaceCapBelowPluginBudget(t *testing.T) {
	dir := t.TempDir()
	for path, data := range map[string]string{
		filepath.Join(dir, "home", "config.toml"):             "step_budget = 1_000_000\n\n[plugins.\"acme.loop\"]\nstep_budget = 5_000_000\n",
		filepath.Join(dir, "work", ".crystal", "config.toml"): "step_budget = 2_000_000\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var notes []string
	var mu sync.Mutex
	h, err := starhost.New(starhost.Options{Home: filepath.Join(dir, "home"), Workspace: filepath.Join(dir, "work"),
		Notes: func(n starhost.Note) { mu.Lock(); notes = append(notes, n.String()); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	c := h.Config()
	if got := c.PluginStepBudget["acme.loop"]; got != 2_000_000 {
		t.Errorf("acme.loop: step budget %d, want 2000000", got)
	}
	if c.Limits.StepBudget != 1_000_000 {
		t.Errorf("global step budget %d, want 1000000", c.Limits.StepBudget)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notes) != 0 {
		t.Errorf("unexpected notes: %q", notes)
	}
}
