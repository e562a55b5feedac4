package starhost

import (
	"context"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/fsnotify/fsnotify"
)

// CheckChange is what changed between two runs of Check.
type CheckChange struct {
	// Added are the findings the new run has and the previous one had not
	// (all of them for the first run); Fixed are the ones it no longer has.
	Added, Fixed []Note
}

// Empty reports whether nothing changed.
func (c CheckChange) Empty() bool { return len(c.Added) == 0 && len(c.Fixed) == 0 }

// checkDebounce is how long WatchCheck waits for the file system to settle
// after a change before checking again (an editor's save is several
// events).
const checkDebounce = 100 * time.Millisecond

// WatchCheck runs Check, then runs it again after every change below the
// checked plugin directories (opts.Paths, or the host's plugin roots), once
// the changes settle. It calls report after each run with the report and
// what changed since the previous run; findings compare by plugin, place,
// severity, code and message. Directories created later are watched too;
// attribute-only changes are ignored. The dry runs' worker process is
// kept between runs (opts.Workers, or one of its own). It returns nil when ctx ends, or the
// error of a run that could not read its paths. report is called from the
// calling goroutine.
func WatchCheck(ctx context.Context, opts CheckOptions, report func(*CheckReport, CheckChange)) error {
	dirs := opts.Paths
	if len(dirs) == 0 {
		sandbox, err := New(opts.Options)
		if err != nil {
			return err
		}
		for _, r := range sandbox.roots() {
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
		opts.Workers = NewCheckWorkers()
		defer opts.Workers.Close()
	}
	prev := map[string]Note{}
	run := func() error {
		r, err := Check(ctx, opts)
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

// diffReports returns what r changed against prev (the previous run's
// findings by key) and makes prev r's.
func diffReports(prev map[string]Note, r *CheckReport) CheckChange {
	var ch CheckChange
	now := map[string]Note{}
	for _, d := range r.Diagnostics {
		k := CheckLine(d) + "\x00" + d.Plugin
		now[k] = d
		if _, ok := prev[k]; !ok {
			ch.Added = append(ch.Added, d)
		}
	}
	for k, d := range prev {
		if _, ok := now[k]; !ok {
			ch.Fixed = append(ch.Fixed, d)
		}
	}
	slices.SortFunc(ch.Fixed, compareNotes)
	clear(prev)
	maps.Copy(prev, now)
	return ch
}
