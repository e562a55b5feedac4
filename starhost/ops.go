package starhost

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/lifecycle"
)

// Enable removes id from the disabled list of one config layer (the home
// layer, or the workspace's when project is set) and re-evaluates (DC25,
// DC29). Enabling grants nothing (DC17).
func (h *Host) Enable(ctx context.Context, id string, project bool) (OpResult, error) {
	return h.setDisabled(ctx, id, project, false)
}

// Disable adds id to the disabled list of one config layer; a running
// generation stops, its consumers first (DC28).
func (h *Host) Disable(ctx context.Context, id string, project bool) (OpResult, error) {
	return h.setDisabled(ctx, id, project, true)
}

func (h *Host) setDisabled(ctx context.Context, id string, project, disable bool) (OpResult, error) {
	if !h.known(id) {
		return OpResult{Result: NotApplied}, fmt.Errorf("no plugin %q [%w]", id, ErrNoPlugin)
	}
	changed, err := h.editConfig(project, func(doc map[string]any) bool {
		list := stringList(doc, "disabled")
		has := slices.Contains(list, id)
		switch {
		case disable && !has:
			list = append(list, id)
		case !disable && has:
			list = slices.DeleteFunc(list, func(s string) bool { return s == id })
		default:
			return false
		}
		doc["disabled"] = list
		return true
	})
	if err != nil {
		return h.opResult(id, NotApplied, err.Error()), err
	}
	h.reevaluate(ctx)
	return h.opResult(id, outcome(changed), ""), nil
}

// known reports whether any root holds plugin id.
func (h *Host) known(id string) bool {
	return lifecycle.Find(h.roots(), h.opts.Display, id) != nil
}

// pluginsDir is the installed root of one layer.
func (h *Host) pluginsDir(project bool) string {
	return h.paths().Plugins(project)
}

// Install copies the bundle in dir into the home plugins root (or the
// project's) under dir's name (DC28, DC29). It grants nothing: new bytes
// need a grant. Installing over an enabled plugin is not_applied (disable it
// first); over one whose teardown is still pending it is not_applied with
// PluginContributionQuiesceFailed; either way the installed directory is
// untouched. There is no rollback once the new bundle is in place.
func (h *Host) Install(ctx context.Context, dir string, project bool) (OpResult, error) {
	src, err := filepath.Abs(dir)
	if err != nil {
		return OpResult{Result: NotApplied}, err
	}
	data, err := os.ReadFile(filepath.Join(src, lifecycle.ManifestName))
	if err != nil {
		return OpResult{Result: NotApplied}, fmt.Errorf("%s is not a plugin directory: %w", dir, err)
	}
	m, diags := lifecycle.ParseManifest(filepath.Join(dir, lifecycle.ManifestName), data, filepath.Base(src))
	if m == nil {
		return OpResult{Result: NotApplied}, fmt.Errorf("%s", diags[0])
	}
	target := filepath.Join(h.pluginsDir(project), filepath.Base(src))
	if _, err := os.Stat(target); err == nil {
		if r, blocked := h.replaceBlocked(target); blocked {
			return r, nil
		}
	}
	if err := replaceTree(src, target); err != nil {
		return h.opResult(m.ID, NotApplied, err.Error()), err
	}
	h.rescan(ctx)
	return h.opResult(m.ID, Applied, ""), nil
}

// replaceBlocked reports whether the plugin installed at target must not be
// replaced now, with the operation's result.
func (h *Host) replaceBlocked(target string) (OpResult, bool) {
	for _, c := range lifecycle.Discover(h.roots(), h.opts.Display) {
		if c.Dir != target && !sameDir(c.Dir, target) || c.Manifest == nil {
			continue
		}
		id := c.Manifest.ID
		if c.Manifest.IsEnabled() && !slices.Contains(h.Config().Disabled, id) {
			r := h.opResult(id, NotApplied, "plugin "+id+" is enabled; run: crystal-star disable "+id+", then install again")
			return r, true
		}
		if h.manager != nil {
			for _, p := range h.Plugins() {
				if p.ID == id && (p.TeardownPending || p.State == lifecycle.Deactivating) {
					r := h.opResult(id, NotApplied, string(contrib.PluginContributionQuiesceFailed)+": plugin "+id+
						" still has work running that ignored cancellation; the directory is untouched; retry when it ends")
					return r, true
				}
			}
		}
	}
	return OpResult{}, false
}

func sameDir(a, b string) bool {
	ea, _ := filepath.EvalSymlinks(a)
	eb, _ := filepath.EvalSymlinks(b)
	return ea != "" && ea == eb
}

// Remove deletes an installed plugin's directory after stopping it. Grants
// are kept (revoking is a separate operation, DC29).
func (h *Host) Remove(ctx context.Context, id string) (OpResult, error) {
	c := lifecycle.Find(h.roots(), h.opts.Display, id)
	if c == nil {
		return OpResult{Result: NotApplied}, fmt.Errorf("no plugin %q [%w]", id, ErrNoPlugin)
	}
	if !c.Source.Installed() || c.Source == contrib.SourceBuiltin {
		return OpResult{Result: NotApplied}, fmt.Errorf("plugin %s is a %s plugin; only installed plugins can be removed", id, c.Source)
	}
	trash := filepath.Join(filepath.Dir(c.Dir), "."+filepath.Base(c.Dir)+".removed")
	_ = os.RemoveAll(trash)
	if err := os.Rename(c.Dir, trash); err != nil {
		return OpResult{Result: NotApplied}, err
	}
	h.rescan(ctx)
	_ = os.RemoveAll(trash)
	return OpResult{Result: Applied}, nil
}

func (h *Host) rescan(ctx context.Context) {
	if h.manager != nil {
		h.manager.Rescan(ctx)
	}
}

// replaceTree copies src to a temporary sibling of dst and swaps it in with
// renames, so dst is either the old tree or the new one.
func replaceTree(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".install-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := os.CopyFS(tmp, os.DirFS(src)); err != nil {
		return fmt.Errorf("copying %s: %w", src, err)
	}
	old := tmp + ".old"
	if err := os.Rename(dst, old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.Rename(tmp, dst); err != nil {
		_ = os.Rename(old, dst)
		return err
	}
	return os.RemoveAll(old)
}
