package starhost

import (
	"context"
	"path/filepath"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/lifecycle"
)

// Watch hot-reloads until ctx ends: plugin roots (a save reloads that plugin
// within milliseconds; a compile error keeps the running generation), both
// config.toml layers (enable, disable, status line), the trust file (a grant
// made in another terminal activates the plugin), providers.json (a bad
// edit keeps the previous providers) and the skills
// directories (attach runs again, CC3). Start must have been called.
func (h *Host) Watch(ctx context.Context) error { return h.WatchReady(ctx, nil) }

// WatchReady is Watch that calls ready (when not nil) once every directory
// is being watched, so a caller can tell its user that saves are seen.
func (h *Host) WatchReady(ctx context.Context, ready func()) error {
	configChanged := func(ctx context.Context) {
		h.reloadConfig()
		h.manager.Reevaluate(ctx)
	}
	return h.manager.Watch(ctx, lifecycle.WatchOptions{
		Files: map[string]func(context.Context){
			h.configPath(false):                       configChanged,
			h.configPath(true):                        configChanged,
			h.trustFile():                             h.manager.Reevaluate,
			filepath.Join(h.opts.Home, ProvidersFile): h.reloadProviders,
		},
		Dirs: map[string]func(context.Context){
			filepath.Join(h.opts.Workspace, ".crystal", "skills"): h.manager.Reattach,
			filepath.Join(h.opts.Home, "skills"):                  h.manager.Reattach,
		},
		Ready: ready,
		Error: func(err error) { h.note(contrib.Diag(contrib.WatchFailed, "", contrib.Pos{}, "%v", err)) },
	})
}

// Rescan discovers the plugin roots again: new plugin directories are
// admitted, removed ones stop.
func (h *Host) Rescan(ctx context.Context) { h.manager.Rescan(ctx) }
