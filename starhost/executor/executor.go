package executor

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crystal-star/crystal-star/internal/layout"
	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/remote"
)

// Options configure an Executor. Home is required.
type Options struct {
	// Home is the executor's own crystal-star home: its trust file
	// decides which bundles run, its config.toml sets their limits and
	// isolation, its data directories are the plugins' data, and
	// {home}/executor holds the bundles and the call ledger.
	Home string
	// Workspace is the directory the tools work in — the checkout next to
	// which the executor runs: ctx.workspace, the project data directories
	// and the workspace's config.toml (which may only tighten limits). ""
	// is {home}/executor/workspace, an empty directory of the executor's.
	Workspace string
	// Token, when set, is the bearer token every request but the probes
	// must carry.
	Token string
	// Notes receives the notes of the bundles' hosts and of the executor;
	// nil discards them. It may be called from any goroutine.
	Notes func(starhost.Note)
}

// Executor serves remote tools. Its methods are safe for concurrent use.
type Executor struct {
	opts    Options
	dir     string // {home}/executor
	server  *mcp.Server
	ledger  *ledger
	metrics metrics

	// life ends with Shutdown: bundles activate under it, not under the
	// context of the request that asked first, so one caller's cancel
	// refuses the bundle to no one.
	life context.Context
	stop context.CancelFunc

	mu       sync.Mutex
	bundles  map[string]*bundle // by fingerprint
	tools    map[string]bool    // names registered with the MCP server
	shut     bool               // Shutdown began: no activation starts
	starting sync.WaitGroup     // activations running (Add under mu)

	draining atomic.Bool
	calls    flight // calls admitted and not finished
}

// flight counts the calls admitted and not finished; Shutdown waits for
// the count to fall to zero on a channel the last call closes.
type flight struct {
	mu   sync.Mutex
	n    int64
	idle chan struct{} // closed when n falls to 0; nil while no one waits
}

// enter counts a call unless refuse, read under the count's lock, says
// no: a call counted before Shutdown's wait began is one it waits for.
func (f *flight) enter(refuse func() bool) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if refuse() {
		return false
	}
	f.n++
	return true
}

func (f *flight) leave() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n--; f.n == 0 && f.idle != nil {
		close(f.idle)
		f.idle = nil
	}
}

func (f *flight) count() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

// wait returns once no call is counted, or ctx's error when it ends first.
func (f *flight) wait(ctx context.Context) error {
	f.mu.Lock()
	if f.n == 0 {
		f.mu.Unlock()
		return nil
	}
	if f.idle == nil {
		f.idle = make(chan struct{})
	}
	idle := f.idle
	f.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// New prepares an executor over opts.Home: it opens the call ledger and
// activates nothing until a call or an upload names a bundle.
func New(opts Options) (*Executor, error) {
	if opts.Home == "" {
		return nil, errors.New("executor: Options.Home is empty")
	}
	abs, err := filepath.Abs(opts.Home)
	if err != nil {
		return nil, err
	}
	opts.Home = abs
	x := &Executor{opts: opts, dir: filepath.Join(abs, "executor"), bundles: map[string]*bundle{}, tools: map[string]bool{}}
	x.life, x.stop = context.WithCancel(context.Background())
	if err := os.MkdirAll(filepath.Join(x.dir, "bundles"), 0o755); err != nil {
		return nil, err
	}
	if opts.Workspace == "" {
		x.opts.Workspace = filepath.Join(x.dir, "workspace")
		if err := os.MkdirAll(x.opts.Workspace, 0o755); err != nil {
			return nil, err
		}
	} else if x.opts.Workspace, err = filepath.Abs(opts.Workspace); err != nil {
		return nil, err
	}
	if x.ledger, err = openLedger(filepath.Join(x.dir, "calls.log")); err != nil {
		return nil, err
	}
	x.server = mcp.NewServer(&mcp.Implementation{Name: "crystal-star-executor", Version: starhost.Version}, nil)
	x.server.AddReceivingMiddleware(x.callsMiddleware)
	return x, nil
}

// callsMiddleware serves every tools/call itself: the bundle its _meta
// names may not be active yet (an executor restarted over its home
// activates a stored bundle on its first call), so the SDK's registry of
// tools, which tools/list shows, cannot decide whether a name exists.
func (x *Executor) callsMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if r, ok := req.(*mcp.CallToolRequest); ok && method == "tools/call" {
			return x.call(ctx, r)
		}
		return next(ctx, method, req)
	}
}

// trustPath is the executor home's trust file.
func (x *Executor) trustPath() string { return layout.Paths{Home: x.opts.Home}.Trust() }

// Handler serves the executor's endpoints (remote.MCPPath, BundlesPath,
// HealthPath, ReadyPath, MetricsPath).
func (x *Executor) Handler() http.Handler {
	mux := http.NewServeMux()
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return x.server },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	mux.Handle(remote.MCPPath, x.authorised(mcpHandler))
	mux.Handle(remote.BundlesPath, x.authorised(http.HandlerFunc(x.serveBundle)))
	mux.Handle(remote.MetricsPath, x.authorised(http.HandlerFunc(x.serveMetrics)))
	mux.HandleFunc(remote.HealthPath, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) })
	mux.HandleFunc(remote.ReadyPath, func(w http.ResponseWriter, _ *http.Request) {
		if x.draining.Load() {
			http.Error(w, "draining", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ready\n"))
	})
	return mux
}

// authorised refuses a request without the executor's bearer token.
func (x *Executor) authorised(next http.Handler) http.Handler {
	if x.opts.Token == "" {
		return next
	}
	want := []byte("Bearer " + x.opts.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			x.metrics.unauthorised.Add(1)
			w.Header().Set("WWW-Authenticate", `Bearer realm="crystal-star executor"`)
			http.Error(w, "a bearer token this executor accepts is required", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Drain stops admitting calls: each new call answers executor_draining
// (never started, so the host sends it elsewhere) and /readyz 503.
func (x *Executor) Drain() { x.draining.Store(true) }

// Shutdown drains, waits for the calls in flight until ctx ends, then
// ends the activations under way, closes every bundle's host and the
// ledger. It returns ctx's error when calls were still running.
func (x *Executor) Shutdown(ctx context.Context) error {
	x.Drain()
	err := x.calls.wait(ctx)
	x.mu.Lock()
	x.shut = true
	x.mu.Unlock()
	x.stop()
	x.starting.Wait()
	x.mu.Lock()
	bundles := x.bundles
	x.bundles = map[string]*bundle{}
	x.mu.Unlock()
	for _, b := range bundles {
		b.close()
	}
	x.ledger.close()
	return err
}

func (x *Executor) note(n starhost.Note) {
	if x.opts.Notes != nil {
		x.opts.Notes(n)
	}
}
