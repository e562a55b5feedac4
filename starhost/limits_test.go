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

// memory_limit and callback_timeout: Options are the embedder's defaults,
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
		{name: "defaults", want: starhost.Limits{MemoryLimit: 512 << 20, CallbackTimeout: 30 * time.Second}},
		{name: "options", opts: starhost.Options{MemoryLimit: 1 << 30, CallbackTimeout: time.Minute},
			want: starhost.Limits{MemoryLimit: 1 << 30, CallbackTimeout: time.Minute}},
		{name: "home overrides options", home: "memory_limit = \"64MiB\"\ncallback_timeout = \"5s\"\n", opts: starhost.Options{MemoryLimit: 1 << 30},
			want: starhost.Limits{MemoryLimit: 64 << 20, CallbackTimeout: 5 * time.Second}},
		{name: "workspace lowers", home: "memory_limit = \"64MiB\"\n", work: "memory_limit = \"32MiB\"\ncallback_timeout = \"1s\"\n",
			want: starhost.Limits{MemoryLimit: 32 << 20, CallbackTimeout: time.Second}},
		{name: "workspace cannot raise", home: "callback_timeout = \"5s\"\n", work: "callback_timeout = \"1h\"\n",
			want: starhost.Limits{MemoryLimit: 512 << 20, CallbackTimeout: 5 * time.Second}, note: "callback_timeout: a workspace config may lower the limit, not raise it; 5s stays in effect [ConfigValueInvalid]"},
		{name: "bad value", home: "memory_limit = \"lots\"\n",
			want: starhost.Limits{MemoryLimit: 512 << 20, CallbackTimeout: 30 * time.Second}, note: `memory_limit: "lots" is not a size`},
		{name: "zero duration", home: "callback_timeout = \"0s\"\n",
			want: starhost.Limits{MemoryLimit: 512 << 20, CallbackTimeout: 30 * time.Second}, note: `callback_timeout: "0s" is not a positive duration such as "30s" or "2m"; 30s stays in effect`},
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
