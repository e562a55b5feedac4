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

// Operator is the operator's plugin operations (DC29): trust grants,
// enabling, disabling, installing and removing plugins. They change files
// on disk (the trust file, a config.toml layer, a plugin root) and the
// running host re-evaluates at once. An agent host exposes them to its
// operator, never to plugins or to the model. Get it with Host.Operator.
//
// Every operation follows one rule: the error is non-nil exactly when
// nothing was applied, and it wraps a Code — ErrNoPlugin, ErrNotApplied
// (with a second code when there is one, such as ErrPluginEnabled or a
// diagnostic code), so a caller branches with errors.Is. On success the
// OpResult says whether anything changed and how the plugin now stands. The
// plugin's state is in the result in both cases when the plugin is known.
type Operator struct{ h *Host }

// Operator returns the host's operator operations. It is safe for
// concurrent use; operations are serialised with the lifecycle.
func (h *Host) Operator() *Operator { return &Operator{h: h} }

// OpResult is what an operation reports: whether it changed anything
// (false: it was already so) and the plugin as it now stands, with its
// blockers and how to resolve them. An applied operation may still leave
// the plugin blocked. Plugin is nil before Start and for an unknown id.
type OpResult struct {
	Changed bool        `json:"changed"`
	Plugin  *PluginInfo `json:"plugin"`
}

// notApplied is the result of an operation that applied nothing: the
// plugin as it stands, and err, which says why and wraps ErrNotApplied
// beside its own codes and causes.
func (h *Host) notApplied(id string, err error) (OpResult, error) {
	return OpResult{Plugin: h.pluginNow(id)}, withCode(err, ErrNotApplied)
}

// applied is the result of an operation that succeeded.
func (h *Host) applied(id string, changed bool) OpResult {
	return OpResult{Changed: changed, Plugin: h.pluginNow(id)}
}

// noPlugin is the error of an operation naming an id no root holds.
func noPlugin(id string) error { return codeErrorf(ErrNoPlugin, "no plugin %q", id) }

// Enable removes id from the disabled list of one config layer (the home
// layer, or the workspace's when project is set) and re-evaluates (DC25,
// DC29). Enabling grants nothing (DC17).
func (o *Operator) Enable(ctx context.Context, id string, project bool) (OpResult, error) {
	return o.h.setDisabled(ctx, id, project, false)
}

// Disable adds id to the disabled list of one config layer; a running
// generation stops, its consumers first (DC28).
func (o *Operator) Disable(ctx context.Context, id string, project bool) (OpResult, error) {
	return o.h.setDisabled(ctx, id, project, true)
}

func (h *Host) setDisabled(ctx context.Context, id string, project, disable bool) (OpResult, error) {
	if !h.known(id) {
		return OpResult{}, noPlugin(id)
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
		return h.notApplied(id, err)
	}
	h.reevaluate(ctx)
	return h.applied(id, changed), nil
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
// need a grant. Installing over an enabled plugin applies nothing
// (ErrPluginEnabled: disable it first); over one whose teardown is still
// pending it applies nothing either (Code("PluginContributionQuiesceFailed"));
// either way the installed directory is untouched. There is no rollback
// once the new bundle is in place.
func (o *Operator) Install(ctx context.Context, dir string, project bool) (OpResult, error) {
	h := o.h
	src, err := filepath.Abs(dir)
	if err != nil {
		return h.notApplied("", codeErrorf(ErrNotApplied, "%s: %w", dir, err))
	}
	data, err := os.ReadFile(filepath.Join(src, lifecycle.ManifestName))
	if err != nil {
		return h.notApplied("", codeErrorf(ErrNotApplied, "%s is not a plugin directory: %w", dir, err))
	}
	m, diags := lifecycle.ParseManifest(filepath.Join(dir, lifecycle.ManifestName), data, filepath.Base(src))
	if m == nil {
		return h.notApplied("", noteOf(diags[0]))
	}
	target := filepath.Join(h.pluginsDir(project), filepath.Base(src))
	if _, err := os.Stat(target); err == nil {
		if id, err := h.replaceBlocked(target); err != nil {
			return h.notApplied(id, err)
		}
	}
	if err := replaceTree(src, target); err != nil {
		return h.notApplied(m.ID, codeErrorf(ErrNotApplied, "plugin %s was not installed: %w", m.ID, err))
	}
	h.rescan(ctx)
	return h.applied(m.ID, true), nil
}

// replaceBlocked says why the plugin installed at target must not be
// replaced now: its id and the error; the error is nil when it may be.
func (h *Host) replaceBlocked(target string) (id string, _ error) {
	for _, c := range lifecycle.Discover(h.roots(), h.opts.Display) {
		if c.Dir != target && !sameDir(c.Dir, target) || c.Manifest == nil {
			continue
		}
		id := c.Manifest.ID
		if c.Manifest.IsEnabled() && !slices.Contains(h.Config().Disabled, id) {
			return id, codeErrorf(ErrPluginEnabled, "plugin %s is enabled; disable it, then install again", id)
		}
		if h.manager != nil {
			for _, p := range h.Plugins() {
				if p.ID == id && (p.TeardownPending || p.State == StateDeactivating) {
					return id, codeErrorf(Code(contrib.PluginContributionQuiesceFailed),
						"plugin %s still has work running that ignored cancellation; the directory is untouched; retry when it ends", id)
				}
			}
		}
	}
	return "", nil
}

func sameDir(a, b string) bool {
	ea, _ := filepath.EvalSymlinks(a)
	eb, _ := filepath.EvalSymlinks(b)
	return ea != "" && ea == eb
}

// Remove deletes an installed plugin's directory after stopping it. Grants
// are kept (revoking is a separate operation, DC29). A dev, project or
// built-in plugin is not removed (ErrNotApplied).
func (o *Operator) Remove(ctx context.Context, id string) (OpResult, error) {
	h := o.h
	c := lifecycle.Find(h.roots(), h.opts.Display, id)
	if c == nil {
		return OpResult{}, noPlugin(id)
	}
	if !c.Source.Installed() || c.Source == contrib.SourceBuiltin {
		return h.notApplied(id, codeErrorf(ErrNotApplied, "plugin %s is a %s plugin; only installed plugins can be removed", id, c.Source))
	}
	trash := filepath.Join(filepath.Dir(c.Dir), "."+filepath.Base(c.Dir)+".removed")
	_ = os.RemoveAll(trash)
	if err := os.Rename(c.Dir, trash); err != nil {
		return h.notApplied(id, codeErrorf(ErrNotApplied, "plugin %s was not removed: %w", id, err))
	}
	h.rescan(ctx)
	_ = os.RemoveAll(trash)
	return OpResult{Changed: true}, nil
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
