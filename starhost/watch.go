package starhost

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/lifecycle"
	"github.com/crystal-star/crystal-star/starhost/internal/sandbox"
)

// Watch hot-reloads until ctx ends: plugin roots (a save reloads that plugin
// within milliseconds; a compile error keeps the running generation), both
// config.toml layers (enable, disable, status line), the trust file (a grant
// made in another terminal activates the plugin), providers.json (a bad
// edit keeps the previous providers) and the skills
// directories (attach runs again, CC3). ready, when not nil, is called once
// every directory is being watched, so a caller can tell its user that
// saves are seen. What the reloads change reaches Subscribe. Before Start
// it watches nothing and returns ErrNotStarted (ready is not called);
// after Close, ErrHostClosed.
//
// One host has one watcher, whatever the number of its sessions. When no
// watcher can be had (the per-user inotify limit, no descriptors left),
// Watch returns at once with an error wrapping Code("WatchFailed") — and
// calls ready first, so a caller waiting for it goes on: the host keeps
// serving without hot reload (Reload and Rescan still work) and says so
// once, in a WatchFailed note.
func (h *Host) Watch(ctx context.Context, ready func()) error {
	if err := h.serving("watch"); err != nil {
		return err
	}
	configChanged := func(ctx context.Context) {
		h.reloadConfig()
		h.manager.Reevaluate(ctx)
	}
	skills := map[string]func(context.Context){}
	for _, dir := range h.skillDirs() {
		skills[dir] = h.manager.Reattach
	}
	err := h.manager.Watch(ctx, lifecycle.WatchOptions{
		Files: map[string]func(context.Context){
			h.configPath(false):   configChanged,
			h.configPath(true):    configChanged,
			h.trustFile():         h.manager.Reevaluate,
			h.paths().Providers(): h.reloadProviders,
		},
		Dirs:  skills,
		Ready: ready,
		Error: func(err error) { h.note(contrib.Diag(contrib.WatchFailed, "", contrib.Pos{}, "%v", err)) },
	})
	if err != nil {
		if h.life.noWatch.CompareAndSwap(false, true) {
			h.note(contrib.Diag(contrib.WatchFailed, "", contrib.Pos{}, "no file watcher: %v; the host serves without hot reload", err).
				WithRemedy("reload plugins with Reload (the console's /reload), or raise fs.inotify.max_user_instances"))
		}
		if ready != nil {
			ready() // nothing more will come: the caller need not wait
		}
		return codeErrorf(Code(contrib.WatchFailed), "watch: nothing can be watched: %w", err)
	}
	return nil
}

// Rescan discovers the plugin roots again: new plugin directories are
// admitted, removed ones stop. Before Start it discovers nothing and
// returns ErrNotStarted; after Close, ErrHostClosed.
func (h *Host) Rescan(ctx context.Context) error {
	if err := h.serving("rescan"); err != nil {
		return err
	}
	h.manager.Rescan(ctx)
	return nil
}

// Change says that what the host offers changed: the one signal an
// embedder rebuilds from (a tool list offered to a model, an MCP
// list_changed, a middleware pipeline, a status bar).
type Change struct {
	// Generation counts the changes of what the host offers (Catalog and
	// Points changes): each such change has a higher one than the last. A
	// Status change carries the current generation. Host.Generation
	// returns the latest. It is the host's counter, one for all plugins:
	// not a plugin's generation ("g2" in PluginInfo, Event, ToolInfo),
	// which names one activation of one plugin.
	Generation uint64
	// Catalog: a plugin generation was published or revoked, or the
	// external tools changed. Tools, commands, placeholders, skills and
	// every point may have changed.
	Catalog bool
	// Points lists the points whose entries changed (an entry added or
	// released at run time, a thread ended); nil with Catalog means every
	// point.
	Points []PointName
	// Thread is the thread the change concerns; "" means every thread.
	Thread string
	// Status: a published status text changed (never for an identical
	// re-set). Redraw the status line.
	Status bool
	// Retired is "plugin@generation" of a generation a reload replaced
	// whose drain ended: its calls finished (or were cancelled past
	// CleanupTimeout) and it is torn down. Reload returns once the new
	// generation serves; this is how the old one's outcome arrives.
	Retired string
}

// Affects reports whether c concerns point in thread: a Catalog change
// affects every point.
func (c Change) Affects(point PointName, thread string) bool {
	if !c.Catalog && !slices.Contains(c.Points, point) {
		return false
	}
	return c.Thread == "" || c.Thread == thread
}

// changeFeed holds the subscribers of Subscribe and the generation counter.
type changeFeed struct {
	generation atomic.Uint64
	mu         sync.Mutex
	seq        int
	subs       []changeSub // replaced, never modified
}

type changeSub struct {
	id int
	fn func(Change)
}

// Subscribe calls fn after every change of what the host offers (Change
// says what): a plugin published or revoked, an external tool set
// changed, a point entry added or released, a thread ended, a status text
// changed. The host drops its own captured state (AssemblePrompt,
// ThreadTools, the middleware of PrepareModelCall) before fn runs (DC12).
// fn runs on the goroutine that made the change and must not block;
// concurrent changes may call it concurrently. The returned function
// cancels the subscription; calling it again does nothing.
func (h *Host) Subscribe(fn func(Change)) (cancel func()) {
	f := &h.changes
	f.mu.Lock()
	f.seq++
	id := f.seq
	f.subs = append(slices.Clone(f.subs), changeSub{id, fn})
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		f.subs = slices.DeleteFunc(slices.Clone(f.subs), func(s changeSub) bool { return s.id == id })
		f.mu.Unlock()
	}
}

// Generation returns the generation of what the host offers now: it
// increases with every Catalog or Points change (Change.Generation). A
// host compares it with the one its offered tool list was built at.
func (h *Host) Generation() uint64 { return h.changes.generation.Load() }

// pointsChanged turns a registry invalidation into a Change.
func (h *Host) pointsChanged(inv contrib.Invalidation) {
	c := Change{Catalog: inv.Points == nil, Points: sandbox.ConvertAll(inv.Points, func(p contrib.PointName) PointName { return PointName(p) }), Thread: inv.Thread}
	c.Generation = h.changes.generation.Add(1)
	h.publish(c)
}

// statusChanged is the board's signal as a Change.
func (h *Host) statusChanged() {
	h.publish(Change{Status: true, Generation: h.changes.generation.Load()})
}

func (h *Host) publish(c Change) {
	h.changes.mu.Lock()
	subs := h.changes.subs
	h.changes.mu.Unlock()
	for _, s := range subs {
		s.fn(c)
	}
}
