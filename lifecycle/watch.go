package lifecycle

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// defaultDebounce is how long the watcher waits after the last event of a
// burst before it acts: editors write a file in several steps.
const defaultDebounce = 10 * time.Millisecond

// WatchOptions configure Watch. The zero value watches the plugin roots only.
type WatchOptions struct {
	Debounce time.Duration
	// Files maps files outside the plugin roots (config.toml, the trust
	// file) to what to do when they change. Their directories are watched.
	Files map[string]func(ctx context.Context)
	// Dirs maps directories (skills roots) to what to do when anything
	// below them changes.
	Dirs map[string]func(ctx context.Context)
	// Error receives watcher errors; nil drops them.
	Error func(error)
	// Ready, when set, is called once every directory is being watched:
	// a change made after it returns is seen.
	Ready func()
}

// Watch watches every plugin root — including subdirectories created later —
// and the given files and directories until ctx ends (hot reload). It
// watches directories, because editors replace files on save; ignores
// chmod-only events; debounces bursts; and reloads a plugin only when its
// content fingerprint changed (AT3). A directory appearing or disappearing
// in a root rescans the roots.
func (m *Manager) Watch(ctx context.Context, opts WatchOptions) error {
	if opts.Debounce <= 0 {
		opts.Debounce = defaultDebounce
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer fsw.Close()
	w := &watcher{m: m, fsw: fsw, opts: opts, roots: map[string]bool{}}
	w.addAll()
	if opts.Ready != nil {
		opts.Ready()
	}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	pending := newBatch()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err, ok := <-fsw.Errors:
			if ok && opts.Error != nil {
				opts.Error(err)
			}
		case ev, ok := <-fsw.Events:
			if !ok {
				return nil
			}
			if ev.Op == fsnotify.Chmod {
				continue
			}
			if w.classify(ev, pending) {
				timer.Reset(opts.Debounce)
			}
		case <-timer.C:
			b := pending
			pending = newBatch()
			w.apply(ctx, b)
		}
	}
}

type watcher struct {
	m     *Manager
	fsw   *fsnotify.Watcher
	opts  WatchOptions
	roots map[string]bool
}

// batch is what one debounced burst asks for.
type batch struct {
	rescan  bool
	plugins map[string]bool // plugin directories
	actions map[string]func(context.Context)
}

func newBatch() *batch {
	return &batch{plugins: map[string]bool{}, actions: map[string]func(context.Context){}}
}

// addAll (re)adds watches: every existing root and everything below it, the
// parents of the watched files, and the watched directories.
func (w *watcher) addAll() {
	for _, r := range w.m.opts.Roots {
		dir, _ := filepath.Abs(r.Dir)
		w.roots[dir] = true
		w.addTree(dir)
		w.fsw.Add(filepath.Dir(dir)) // a root created later
	}
	for f := range w.opts.Files {
		w.fsw.Add(filepath.Dir(f))
	}
	for d := range w.opts.Dirs {
		w.addTree(d)
	}
}

func (w *watcher) addTree(dir string) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			w.fsw.Add(p)
		}
		return nil
	})
}

// classify records what ev asks for; it reports whether anything did.
func (w *watcher) classify(ev fsnotify.Event, b *batch) bool {
	path := filepath.Clean(ev.Name)
	if ev.Op.Has(fsnotify.Create) {
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			w.addTree(path)
		}
	}
	if f, ok := w.opts.Files[path]; ok {
		b.actions[path] = f
		return true
	}
	for d, f := range w.opts.Dirs {
		if within(path, d) {
			b.actions[d] = f
			return true
		}
	}
	for _, dir := range w.m.dirs() {
		if within(path, dir) && path != dir {
			b.plugins[dir] = true
			return true
		}
	}
	for root := range w.roots {
		if filepath.Dir(path) == root || path == root || within(path, root) {
			b.rescan = true
			if path == root {
				w.addTree(root)
			}
			return true
		}
	}
	return false
}

func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+string(filepath.Separator))
}

// apply carries out one batch: file actions (config, trust) first, then a
// rescan or the plugin reloads.
func (w *watcher) apply(ctx context.Context, b *batch) {
	for _, f := range b.actions {
		f(ctx)
	}
	if b.rescan {
		w.m.Rescan(ctx)
	}
	for dir := range b.plugins {
		_ = w.m.Reload(ctx, dir) // its outcome is in the events and the projection
	}
}
