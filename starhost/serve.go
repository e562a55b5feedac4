package starhost

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/lifecycle"
)

// hostLife is the host's own life: Start once, Close once, and what the
// last read of the configuration could not read.
type hostLife struct {
	started   atomic.Bool
	closed    atomic.Bool
	closeOnce sync.Once
	noWatch   atomic.Bool // the WatchFailed note was given
	// unreadable is the last ConfigUnreadable note of each layer's read,
	// nil when both layers read (reloadConfig).
	unreadable atomic.Pointer[contrib.Diagnostic]
}

// Start discovers plugins (AT4), admits, activates and attaches them. One
// bad plugin never stops the others and is not an error of Start: it
// arrives as a note, an event and in Plugins(). Call it once, before the
// other methods that serve plugins (Host says what they do before it).
//
// Start fails, and starts nothing, when the host cannot serve: it was
// started already (ErrHostStarted) or closed (ErrHostClosed), ctx is
// already done (ErrCancelled), or a config.toml layer exists but cannot be
// read (its note's code, ConfigUnreadable): serving without it could run
// plugins the operator disabled.
func (h *Host) Start(ctx context.Context) error {
	if h.life.closed.Load() {
		return codeErrorf(ErrHostClosed, "the host is closed and cannot start")
	}
	if err := ctx.Err(); err != nil {
		return codeErrorf(ErrCancelled, "the host did not start: %w", err)
	}
	if d := h.life.unreadable.Load(); d != nil {
		// The note said the layer is ignored; Start ignores nothing.
		return codeErrorf(Code(d.Code), "the host did not start: %s", strings.Replace(d.Message, " and is ignored", "", 1))
	}
	if !h.life.started.CompareAndSwap(false, true) {
		return codeErrorf(ErrHostStarted, "the host is already started")
	}
	h.warnWorkspaceTrust()
	h.startModels() // the session is published before any attach_session (CC20)
	h.manager.Start(ctx)
	h.finishModels(ctx) // first connect: factories are loaded now (CC9)
	return h.workersUnstartable()
}

// Reload re-reads one plugin directory and replaces its generation when its
// content changed, make-before-break (AT2): any failure of the next
// generation keeps the running one serving (AT3).
//
// It returns nil when the new generation serves or nothing changed;
// ErrNotStarted before Start and ErrHostClosed after Close; ErrNoPlugin
// when dir is "" or no discovered plugin lives in it; and otherwise an
// error wrapping the failed attempt's first error Note (errors.As gives
// its file, line and column; errors.Is its Code), or a Note made of its
// first blocker, whether the previous generation was kept (the message
// says so) or the plugin had none to keep.
func (h *Host) Reload(ctx context.Context, dir string) error {
	if err := h.serving("reload"); err != nil {
		return err
	}
	if dir == "" {
		return codeErrorf(ErrNoPlugin, "reload: no plugin directory was given")
	}
	err := h.manager.Reload(ctx, dir) // an error exactly when the new content did not go live
	switch {
	case err == nil:
		return nil
	case errors.Is(err, lifecycle.ErrUnknownPlugin):
		return codeErrorf(ErrNoPlugin, "reload: no plugin in %s", dir)
	}
	abs, _ := filepath.Abs(dir)
	for _, p := range h.manager.Plugins() {
		switch {
		case p.Directory != abs:
		case p.Generation != "" && p.State != lifecycle.Faulted && p.State != lifecycle.Blocked: // kept (AT3)
			return h.failedReload(&p, fmt.Sprintf("the new content of %s failed; generation %s keeps serving", p.ID, p.Generation))
		default:
			return h.failedReload(&p, fmt.Sprintf("%s is %s", p.ID, p.State))
		}
	}
	return err
}

// failedReload is the error of a failed attempt: what became of the
// plugin, then the attempt's first error diagnostic, else its first
// blocker, as a Note; ExecutionFailed when it has neither.
func (h *Host) failedReload(p *lifecycle.Projection, what string) error {
	for _, d := range p.Diagnostics {
		if d.Severity == contrib.SeverityError {
			return codeErrorf(Code(d.Code), "reload: %s: %w", what, noteOf(h.redactNote(d)))
		}
	}
	for _, b := range p.Blockers {
		n := noteOf(h.redactNote(contrib.Diagnostic{Code: b.Code, Severity: contrib.SeverityError, Plugin: p.ID, Message: b.Message, Remedy: b.Remedy}))
		return codeErrorf(n.Code, "reload: %s: %w", what, n)
	}
	return codeErrorf(Code(contrib.ExecutionFailed), "reload: %s", what)
}

// serving is nil when the host is started and not closed; otherwise the
// error of op, which needs a serving host: ErrNotStarted or ErrHostClosed.
func (h *Host) serving(op string) error {
	switch {
	case h.life.closed.Load():
		return codeErrorf(ErrHostClosed, "%s: the host is closed", op)
	case !h.life.started.Load():
		return codeErrorf(ErrNotStarted, "%s: the host is not started; call Start first", op)
	}
	return nil
}

// Close deactivates every plugin, consumers first, and waits for every
// teardown, even past the cleanup timeout (DC27). It returns an error
// wrapping ErrNotDrained that names the generations whose calls did not
// drain within CleanupTimeout (they were cancelled and waited for; their
// work may have been cut short). A second Close does nothing and returns
// nil; a closed host cannot be started.
func (h *Host) Close(ctx context.Context) error {
	var err error // only the first Close reports
	h.life.closeOnce.Do(func() {
		h.life.closed.Store(true)
		h.models.closing.Store(true) // no reconnecting while plugins stop
		if h.manager != nil {
			before := len(h.manager.Overdue())
			h.manager.Close(ctx)
			if late := h.manager.Overdue()[before:]; len(late) > 0 {
				err = codeErrorf(ErrNotDrained, "close: %d generation(s) did not drain within the cleanup timeout: %s",
					len(late), strings.Join(late, ", "))
			}
		}
		if h.router != nil {
			h.router.remote.Close() // workers compiled but never activated; ends and waits for each
		}
	})
	return err
}
