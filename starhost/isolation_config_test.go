package starhost

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/internal/testkit"
)

// isolationHost writes the two config layers and returns a host built on
// them with the notes it reported.
func isolationHost(t *testing.T, opts Options, home, workspace string) (*Host, []Note) {
	t.Helper()
	dir := t.TempDir()
	opts.Home, opts.Workspace = filepath.Join(dir, "home"), filepath.Join(dir, "ws")
	testkit.WriteTree(t, dir, map[string]string{"home/config.toml": home, "ws/.crystal/config.toml": workspace})
	var notes []Note
	opts.Notes = func(n Note) { notes = append(notes, n) }
	h, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return h, notes
}

func TestIsolationLayers(t *testing.T) {
	for _, c := range []struct {
		name, home, ws string
		opts           Options
		want           map[string]string // plugin → mode
		weakened       int
	}{
		{name: "default", want: map[string]string{"a": IsolationInProcess}},
		{name: "home global and per plugin",
			home: "isolation = \"process\"\n[plugins.\"b\"]\nisolation = \"in_process\"\n",
			want: map[string]string{"a": IsolationProcess, "b": IsolationInProcess}},
		{name: "workspace global process tightens every plugin",
			home: "[plugins.\"b\"]\nisolation = \"in_process\"\n", ws: "isolation = \"process\"\n",
			want: map[string]string{"a": IsolationProcess, "b": IsolationProcess}},
		{name: "workspace per plugin tightens one",
			ws:   "[plugins.\"b\"]\nisolation = \"process\"\n",
			want: map[string]string{"a": IsolationInProcess, "b": IsolationProcess}},
		{name: "workspace cannot weaken globally or per plugin",
			home: "isolation = \"process\"\n", ws: "isolation = \"in_process\"\n[plugins.\"b\"]\nisolation = \"in_process\"\n",
			want: map[string]string{"a": IsolationProcess, "b": IsolationProcess}, weakened: 2},
		{name: "options process is a floor",
			opts: Options{Isolation: IsolationProcess}, home: "isolation = \"in_process\"\n",
			want: map[string]string{"a": IsolationProcess}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h, notes := isolationHost(t, c.opts, c.home, c.ws)
			for id, mode := range c.want {
				if got := h.Isolation(id); got != mode {
					t.Errorf("Isolation(%s) = %s, want %s", id, got, mode)
				}
			}
			weakened := 0
			for _, n := range notes {
				if n.Code == Code(contrib.IsolationWeakened) {
					weakened++
				}
			}
			if weakened != c.weakened {
				t.Errorf("%d IsolationWeakened notes, want %d: %v", weakened, c.weakened, notes)
			}
		})
	}
}

func TestIsolationLimits(t *testing.T) {
	h, notes := isolationHost(t, Options{MemoryLimit: 1 << 30, CallbackTimeout: time.Minute},
		"memory_limit = \"64MiB\"\ncallback_timeout = \"2s\"\n", "")
	if mem, timeout := h.limits(); mem != 64<<20 || timeout != 2*time.Second || len(notes) != 0 {
		t.Fatalf("limits = %d, %s (notes %v); want 64MiB and 2s from config.toml", mem, timeout, notes)
	}
	h, notes = isolationHost(t, Options{}, "memory_limit = \"lots\"\ncallback_timeout = \"-1s\"\n", "")
	if mem, timeout := h.limits(); mem != DefaultWorkerMemoryLimit || timeout != DefaultCallbackTimeout || len(notes) != 2 {
		t.Fatalf("limits = %d, %s (notes %v); want the defaults and two notes", mem, timeout, notes)
	}
}
