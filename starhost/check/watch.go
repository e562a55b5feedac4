package check

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/internal/sandbox"
)

// Change is what changed between two runs of Plugins.
type Change struct {
	// Added are the findings the new run has and the previous one had not
	// (all of them for the first run); Fixed are the ones it no longer has.
	// Hidden are the ones it no longer has because a syntax error in their
	// plugin stops the checks that found them: not fixed, and still
	// expected — reported fixed only once a run without the syntax error
	// lacks them.
	Added, Fixed, Hidden []starhost.Note
}

// Empty reports whether nothing changed.
func (c Change) Empty() bool {
	return len(c.Added) == 0 && len(c.Fixed) == 0 && len(c.Hidden) == 0
}

// checkDebounce is how long Watch waits for the file system to settle
// after a change before checking again (an editor's save is several
// events).
const checkDebounce = 100 * time.Millisecond

// Watch runs Plugins, then runs it again after every change below the
// checked plugin directories (opts.Paths, or the host's plugin roots), once
// the changes settle. It calls report after each run with the report and
// what changed since the previous run; findings compare by plugin, place,
// severity, code and message. Directories created later are watched too;
// attribute-only changes are ignored. The dry runs' worker process is
// kept between runs (opts.Workers, or one of its own). It returns nil when ctx ends, or the
// error of a run that could not read its paths. report is called from the
// calling goroutine.
func Watch(ctx context.Context, opts Options, report func(*Report, Change)) error {
	dirs := opts.Paths
	if len(dirs) == 0 {
		host, err := starhost.New(opts.Options)
		if err != nil {
			return err
		}
		for _, r := range sandbox.Of(host).Roots() {
			dirs = append(dirs, r.Dir)
		}
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	for _, d := range dirs {
		watchTree(w, d)
	}
	if opts.Workers == nil {
		// One worker serves every run of the watch.
		opts.Workers = NewWorkers()
		defer opts.Workers.Close()
	}
	prev := &watchState{}
	run := func() error {
		r, err := Plugins(ctx, opts)
		if err != nil {
			return err
		}
		report(r, diffReports(prev, r))
		return nil
	}
	if err := run(); err != nil {
		return err
	}
	var settle <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if ev.Op == fsnotify.Chmod {
				continue
			}
			if ev.Op&fsnotify.Create != 0 {
				if st, err := os.Stat(ev.Name); err == nil && st.IsDir() {
					watchTree(w, ev.Name)
				}
			}
			settle = time.After(checkDebounce)
		case <-w.Errors:
			// A lost event: check again, as if something changed.
			settle = time.After(checkDebounce)
		case <-settle:
			settle = nil
			if err := run(); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return err
			}
		}
	}
}

// watchTree watches dir and every directory below it; unreadable parts
// are skipped (a later run reports them).
func watchTree(w *fsnotify.Watcher, dir string) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = w.Add(p)
		}
		return nil
	})
}

// watchState is what the watch remembers between runs: the findings by
// key, and which of them a syntax error hides (reported hidden once).
type watchState struct {
	seen   map[string]starhost.Note
	hidden map[string]bool
}

// diffReports returns what r changed against the previous run and makes
// st r's. A finding gone from a plugin that now has a syntax error is
// hidden, not fixed: the checks that found it did not run. It stays
// expected, and is reported fixed only by a run that parses its plugin.
func diffReports(st *watchState, r *Report) Change {
	var ch Change
	now := map[string]starhost.Note{}
	broken := map[string]bool{} // plugins with a syntax error: nothing past parsing ran
	for _, d := range r.Diagnostics {
		k := Line(d) + "\x00" + d.Plugin
		now[k] = d
		if _, ok := st.seen[k]; !ok {
			ch.Added = append(ch.Added, d)
		}
		if d.Code == starhost.Code(contrib.SyntaxError) {
			broken[d.Plugin] = true
		}
	}
	hidden := map[string]bool{}
	for k, d := range st.seen {
		if _, ok := now[k]; ok {
			continue
		}
		if broken[d.Plugin] && d.Code != starhost.Code(contrib.SyntaxError) {
			now[k], hidden[k] = d, true
			if !st.hidden[k] {
				ch.Hidden = append(ch.Hidden, d)
			}
			continue
		}
		ch.Fixed = append(ch.Fixed, d)
	}
	byPlace := func(a, b starhost.Note) int { return compareNotes(diagOf(a), diagOf(b)) }
	slices.SortFunc(ch.Fixed, byPlace)
	slices.SortFunc(ch.Hidden, byPlace)
	st.seen, st.hidden = now, hidden
	return ch
}
