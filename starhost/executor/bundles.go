package executor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/remote"
	"github.com/crystal-star/crystal-star/starhost/toolwire"
)

// bundle is one activated bundle: a host of its own over the executor's
// home, with the bundle as its one built-in plugin.
type bundle struct {
	fp, plugin string
	ready      chan struct{} // closed once activation ended
	err        error         // why it did not activate
	host       *starhost.Host
	session    *starhost.Session            // the session the executor's calls serve
	tools      map[string]starhost.ToolInfo // its remote tools
	closeOnce  sync.Once
}

func (b *bundle) close() {
	b.closeOnce.Do(func() {
		if b.host != nil {
			_ = b.host.Close(context.Background())
		}
	})
}

// refusal is an error with the HTTP status and code an upload answers.
type refusal struct {
	status int
	code   contrib.Code
	msg    string
}

func (r *refusal) Error() string { return r.msg }

func refused(status int, format string, args ...any) *refusal {
	return &refusal{status: status, code: contrib.RemoteBundleRefused, msg: fmt.Sprintf(format, args...)}
}

// errMissing: the executor holds no such bundle.
var errMissing = errors.New("bundle missing")

// bundleDir is where a bundle's files live: bundles/sha256-<hex>/<plugin id>.
func (x *Executor) bundleDir(fp string) string {
	return filepath.Join(x.dir, "bundles", strings.TrimSuffix(remote.FileName(fp), ".tar"))
}

// get returns the active bundle fp, activating it from disk when an
// earlier run of the executor stored it; errMissing when it has none.
func (x *Executor) get(ctx context.Context, fp string) (*bundle, error) {
	x.mu.Lock()
	b, ok := x.bundles[fp]
	x.mu.Unlock()
	if !ok {
		a, err := x.stored(fp)
		if err != nil {
			return nil, err
		}
		b = x.activate(a)
	}
	return b, b.wait(ctx)
}

// wait returns once b's activation ended, with why it failed, or ctx's
// error when the caller stops waiting first: the activation goes on for
// the others.
func (b *bundle) wait(ctx context.Context) error {
	select {
	case <-b.ready:
		return b.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// stored reads bundle fp from disk, re-checking its hash: a file changed
// on disk since the upload is refused like a tampered archive.
func (x *Executor) stored(fp string) (remote.Archive, error) {
	dir := x.bundleDir(fp)
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		return remote.Archive{}, errMissing
	}
	a, err := remote.Pack(filepath.Join(dir, entries[0].Name()))
	if err != nil {
		return remote.Archive{}, refused(http.StatusBadRequest, "stored bundle %s is unreadable: %v", fp, err)
	}
	if a.Fingerprint != fp {
		return remote.Archive{}, refused(http.StatusBadRequest, "stored bundle %s now hashes to %s: it was altered on disk", fp, a.Fingerprint)
	}
	return a, nil
}

// admit runs the checks every bundle passes before any of it runs: the
// executor's own grant of the exact fingerprint and remote eligibility.
// (The hash was checked by remote.Open or stored; the token by the
// handler.)
func (x *Executor) admit(a remote.Archive) error {
	if err := remote.Granted(x.trustPath(), a.Plugin, a.Fingerprint); err != nil {
		return refused(http.StatusForbidden, "%v; its operator grants it with: crystal-star --home %s trust grant --archive %s", err, x.opts.Home, a.FileName())
	}
	if diags := remote.Ineligible(a); len(diags) > 0 {
		r := refused(http.StatusUnprocessableEntity, "plugin %s is not remote-eligible: %s", a.Plugin, diags[0].String())
		r.code = contrib.RemoteIneligible
		return r
	}
	return nil
}

// activate starts bundle a once (checks first), and registers its remote
// tools. Concurrent callers share one activation, which runs on its own
// under the executor's lifetime: each caller waits for it with its own
// context (bundle.wait), and none can cut it short for the others.
func (x *Executor) activate(a remote.Archive) *bundle {
	x.mu.Lock()
	defer x.mu.Unlock()
	if b, ok := x.bundles[a.Fingerprint]; ok {
		return b
	}
	b := &bundle{fp: a.Fingerprint, plugin: a.Plugin, ready: make(chan struct{})}
	if x.shut {
		b.err = refused(http.StatusServiceUnavailable, "this executor is shutting down")
		close(b.ready)
		return b
	}
	x.bundles[a.Fingerprint] = b
	x.starting.Add(1)
	go func() {
		defer x.starting.Done()
		b.err = x.start(x.life, a, b)
		if b.err != nil {
			x.mu.Lock()
			delete(x.bundles, a.Fingerprint)
			x.mu.Unlock()
			b.close()
		} else {
			x.register(b)
			x.metrics.bundles.Add(1)
		}
		close(b.ready)
	}()
	return b
}

// start checks a, writes it below bundles/ and starts its host.
func (x *Executor) start(ctx context.Context, a remote.Archive, b *bundle) error {
	if err := x.admit(a); err != nil {
		return err
	}
	dir := x.bundleDir(a.Fingerprint)
	if err := x.write(dir, a); err != nil {
		return err
	}
	h, err := starhost.New(starhost.Options{Home: x.opts.Home, Workspace: x.opts.Workspace,
		Builtin: []string{dir}, Notes: x.note, Models: noModels{}})
	if err != nil {
		return err
	}
	b.host = h
	if err := h.Start(ctx); err != nil {
		return err
	}
	for _, p := range h.Plugins() {
		if p.ID != a.Plugin {
			continue
		}
		if p.State != starhost.StateActive || p.Fingerprint != a.Fingerprint {
			why := string(p.State)
			for _, d := range p.Diagnostics {
				if d.Severity == starhost.SeverityError {
					why = d.String()
					break
				}
			}
			return refused(http.StatusUnprocessableEntity, "plugin %s did not activate on this executor: %s", a.Plugin, why)
		}
	}
	sess, err := h.NewSession(ctx, starhost.SessionOptions{})
	if err != nil {
		return refused(http.StatusServiceUnavailable, "no session on this executor: %v", err)
	}
	b.session = sess
	b.tools = map[string]starhost.ToolInfo{}
	for _, t := range sess.Thread("").Tools(ctx, starhost.PlanAndWork).List() {
		if t.Plugin == a.Plugin && t.Remote {
			b.tools[t.Name] = t
		}
	}
	return nil
}

// write stores a's files in dir, atomically: a directory written aside
// and renamed, so a crash leaves no half bundle under its name.
func (x *Executor) write(dir string, a remote.Archive) error {
	if _, err := os.Stat(dir); err == nil {
		return nil // stored by an earlier upload; its hash is re-checked on read
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".upload-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	root := filepath.Join(tmp, a.Plugin)
	for p, data := range a.Files {
		file := filepath.Join(root, filepath.FromSlash(path.Clean(p)))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(file, data, 0o644); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, dir); err != nil && !os.IsExist(err) {
		if _, statErr := os.Stat(dir); statErr != nil {
			return err
		}
	}
	return nil
}

// register adds b's remote tools to the MCP server; one handler serves a
// name for every bundle (the call's _meta names the bundle).
func (x *Executor) register(b *bundle) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, name := range slices.Sorted(maps.Keys(b.tools)) {
		if x.tools[name] {
			continue
		}
		x.tools[name] = true
		t := b.tools[name]
		x.server.AddTool(&mcp.Tool{Name: name, Description: t.Description, InputSchema: json.RawMessage(`{"type":"object"}`),
			Meta: mcp.Meta{toolwire.RemoteMetaKey: true}}, x.call)
	}
}

// serveBundle is the bundle endpoint: PUT uploads, GET and HEAD ask.
func (x *Executor) serveBundle(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, remote.BundlesPath)
	fp := remote.FingerprintOf(name)
	if fp == "" {
		answer(w, http.StatusNotFound, remote.Answer{Code: string(contrib.RemoteBundleRefused), Message: fmt.Sprintf("%q is not an archive name (want sha256-<64 hex>.tar)", name)})
		return
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		b, err := x.get(r.Context(), fp)
		x.reply(w, b, err, http.StatusOK)
	case http.MethodPut:
		data, err := io.ReadAll(io.LimitReader(r.Body, remote.MaxArchiveBytes+1))
		if err != nil {
			answer(w, http.StatusBadRequest, remote.Answer{Code: string(contrib.RemoteBundleRefused), Message: err.Error()})
			return
		}
		a, err := remote.Open(name, data)
		if err != nil {
			x.metrics.refused.Add(1)
			answer(w, http.StatusBadRequest, remote.Answer{Code: string(contrib.RemoteBundleRefused), Message: err.Error()})
			return
		}
		status := http.StatusOK
		x.mu.Lock()
		_, held := x.bundles[fp]
		x.mu.Unlock()
		if !held {
			status = http.StatusCreated
		}
		b := x.activate(a)
		x.reply(w, b, b.wait(r.Context()), status)
	default:
		w.Header().Set("Allow", "GET, HEAD, PUT")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// reply answers a bundle request with b or why not.
func (x *Executor) reply(w http.ResponseWriter, b *bundle, err error, ok int) {
	var ref *refusal
	switch {
	case err == nil:
		answer(w, ok, remote.Answer{Plugin: b.plugin, Fingerprint: b.fp, Tools: slices.Sorted(maps.Keys(b.tools))})
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		answer(w, http.StatusServiceUnavailable, remote.Answer{Code: string(contrib.RemoteBundleRefused), Message: "the request ended before the bundle activated (it goes on activating): " + err.Error()})
	case errors.Is(err, errMissing):
		answer(w, http.StatusNotFound, remote.Answer{Code: remote.CodeBundleMissing, Message: "this executor holds no such bundle"})
	case errors.As(err, &ref):
		x.metrics.refused.Add(1)
		answer(w, ref.status, remote.Answer{Code: string(ref.code), Message: ref.msg})
	default:
		answer(w, http.StatusInternalServerError, remote.Answer{Code: string(contrib.RemoteBundleRefused), Message: err.Error()})
	}
}

func answer(w http.ResponseWriter, status int, a remote.Answer) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(a)
}

// noModels gives the bundles' hosts no model client: an executor has no
// agent session (remote-eligible plugins never ask for the models
// capability; this is the floor if one did).
type noModels struct{}

func (noModels) NewClient(context.Context, starhost.ClientSpec) (starhost.ModelClient, error) {
	return nil, errors.New("an executor gives plugins no model clients")
}
