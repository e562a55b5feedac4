package remote

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/mcpserve"
	"github.com/crystal-star/crystal-star/starhost/toolsets"
)

// Options configure a Remote. The zero value is usable.
type Options struct {
	// HTTPClient carries every request to executors; nil is a client with
	// keep-alive connections and no overall timeout (a call's context
	// bounds it).
	HTTPClient *http.Client
	// Getenv reads the token_env variables; nil is os.Getenv.
	Getenv func(string) string
}

// Remote routes remote tools to executors: starhost.Options.Remote. It is
// safe for concurrent use; one Remote serves every plugin of a host and
// keeps one MCP client session per executor.
type Remote struct {
	opts  Options
	mu    sync.Mutex
	execs map[string]*executor // by name and URL
}

var _ starhost.RemoteTools = (*Remote)(nil)

// New returns a Remote.
func New(opts Options) *Remote {
	if opts.HTTPClient == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = 64
		opts.HTTPClient = &http.Client{Transport: t}
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	return &Remote{opts: opts, execs: map[string]*executor{}}
}

// executorFor returns the client of one configured executor.
func (r *Remote) executorFor(c starhost.NamedExecutor) *executor {
	key := c.Name + "\x00" + c.URL + "\x00" + c.TokenEnv
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.execs[key]; ok {
		return e
	}
	token := ""
	if c.TokenEnv != "" {
		token = r.opts.Getenv(c.TokenEnv)
	}
	e := &executor{name: c.Name, url: strings.TrimRight(c.URL, "/"), tokenEnv: c.TokenEnv,
		http: &http.Client{Transport: &authTransport{base: r.opts.HTTPClient.Transport, token: token}}, held: map[string]bool{}}
	r.execs[key] = e
	return e
}

// Prepare packs the generation's bundle and offers it to each executor
// that lacks it. It fails only when every executor refused the bundle (not
// granted, tampered, not remote-eligible): an executor that cannot be
// reached now is tried again by each call.
func (r *Remote) Prepare(ctx context.Context, g starhost.RemoteGeneration) (starhost.RemoteRoute, error) {
	a, err := PackFiles(g.Files)
	if err != nil {
		return nil, err
	}
	rt := &route{a: a, note: g.Note}
	var refusals []string
	for _, c := range g.Executors {
		e := r.executorFor(c)
		if c.URL == "" {
			refusals = append(refusals, fmt.Sprintf("executor %s has no [executors.%s] url in the home config.toml", c.Name, c.Name))
			continue
		}
		rt.execs = append(rt.execs, e)
		switch err := e.ensure(ctx, a); {
		case err == nil:
		case isRefusal(err):
			refusals = append(refusals, fmt.Sprintf("executor %s refused bundle %s: %v", e.name, a.Fingerprint, err))
			rt.execs = rt.execs[:len(rt.execs)-1]
		default:
			rt.down(e, err)
		}
	}
	if len(rt.execs) == 0 {
		return nil, errors.New(strings.Join(refusals, "; "))
	}
	for _, msg := range refusals {
		rt.notef("%s", msg)
	}
	return rt, nil
}

// route carries one generation's calls.
type route struct {
	a     Archive
	execs []*executor
	next  atomic.Uint64
	note  func(string)
}

func (rt *route) notef(format string, args ...any) {
	if rt.note != nil {
		rt.note(fmt.Sprintf(format, args...))
	}
}

// down notes an executor that could not be reached, once until it answers
// again.
func (rt *route) down(e *executor, err error) {
	if e.isDown.CompareAndSwap(false, true) {
		rt.notef("executor %s is unavailable: %v; calls go to the plugin's other executors", e.name, err)
	}
}

func (rt *route) Close() {}

// Call runs tool on one executor after another, from the next in turn,
// until one takes the call. A call that never started on an executor (it
// could not be reached, or answered that it drains or lacks the bundle)
// goes to the next; one that started is not sent elsewhere: lost with its
// executor it is tool_interrupted. The call id travels with every attempt.
func (rt *route) Call(ctx context.Context, tool string, args json.RawMessage) starhost.ToolResult {
	id := newCallID()
	first := rt.next.Add(1)
	var reasons []string
	for i := range rt.execs {
		if ctx.Err() != nil {
			return failure(starhost.ErrCancelled, "the caller's context ended")
		}
		e := rt.execs[(int(first)+i)%len(rt.execs)]
		res, started, err := e.call(ctx, rt.a, tool, args, id)
		switch {
		case ctx.Err() != nil:
			return failure(starhost.ErrCancelled, "the caller's context ended")
		case started:
			e.isDown.Store(false)
			return res
		case err != nil:
			rt.down(e, err)
			reasons = append(reasons, fmt.Sprintf("executor %s: %v", e.name, err))
		}
	}
	return failure(starhost.ErrToolUnavailable, "no executor can take the call: "+strings.Join(reasons, "; "))
}

func failure(code starhost.Code, msg string) starhost.ToolResult {
	return starhost.ToolResult{Error: &starhost.ToolError{Code: code, Message: msg}}
}

func newCallID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// executor is the client of one executor.
type executor struct {
	name, url, tokenEnv string
	http                *http.Client
	isDown              atomic.Bool

	mu      sync.Mutex
	session *mcp.ClientSession
	held    map[string]bool // fingerprints the executor holds
}

// refusalError is an executor's refusal of a bundle.
type refusalError struct{ Answer }

func (e *refusalError) Error() string { return e.Message }

func isRefusal(err error) bool {
	var r *refusalError
	return errors.As(err, &r)
}

// ensure makes sure the executor holds bundle a: asks, uploads when it
// lacks it.
func (e *executor) ensure(ctx context.Context, a Archive) error {
	e.mu.Lock()
	held := e.held[a.Fingerprint]
	e.mu.Unlock()
	if held {
		return nil
	}
	url := e.url + BundlesPath + a.FileName()
	status, ans, err := e.do(ctx, http.MethodGet, url, nil)
	if err == nil && status == http.StatusNotFound {
		status, ans, err = e.do(ctx, http.MethodPut, url, a.Data)
	}
	switch {
	case err != nil:
		return err
	case status == http.StatusUnauthorized:
		return &refusalError{Answer{Code: "unauthorized", Message: "the executor wants a bearer token it accepts (token_env " + e.tokenEnv + ")"}}
	case status >= 400:
		return &refusalError{ans}
	}
	e.mu.Lock()
	e.held[a.Fingerprint] = true
	e.mu.Unlock()
	return nil
}

func (e *executor) do(ctx context.Context, method, url string, body []byte) (int, Answer, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return 0, Answer{}, err
	}
	resp, err := e.http.Do(req)
	if err != nil {
		return 0, Answer{}, err
	}
	defer resp.Body.Close()
	var ans Answer
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if json.Unmarshal(data, &ans) != nil && resp.StatusCode >= 400 {
		ans.Message = strings.TrimSpace(string(data))
	}
	return resp.StatusCode, ans, nil
}

// connect returns the executor's MCP client session, connecting it when
// there is none.
func (e *executor) connect(ctx context.Context) (*mcp.ClientSession, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.session != nil {
		return e.session, nil
	}
	t := &mcp.StreamableClientTransport{Endpoint: e.url + MCPPath, HTTPClient: e.http, DisableStandaloneSSE: true, MaxRetries: -1}
	client := mcp.NewClient(&mcp.Implementation{Name: "crystal-star", Version: starhost.Version}, nil)
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cs, err := client.Connect(cctx, t, nil)
	if err != nil {
		return nil, err
	}
	e.session = cs
	return cs, nil
}

// drop forgets a session that failed, so the next call connects again.
func (e *executor) drop(cs *mcp.ClientSession) {
	e.mu.Lock()
	if e.session == cs {
		e.session = nil
	}
	e.mu.Unlock()
	_ = cs.Close()
}

// call makes one attempt of a call on the executor. started reports that
// res is the call's outcome; otherwise the call never ran there and err
// says why.
func (e *executor) call(ctx context.Context, a Archive, tool string, args json.RawMessage, id string) (res starhost.ToolResult, started bool, err error) {
	for attempt := 0; attempt < 2; attempt++ {
		cs, err := e.connect(ctx)
		if err != nil {
			return res, false, err
		}
		params := &mcp.CallToolParams{Name: tool, Arguments: args, Meta: mcp.Meta{MetaBundle: a.Fingerprint, MetaCallID: id}}
		var wrote atomic.Bool // some attempt of the transport wrote the call
		trace := &httptrace.ClientTrace{WroteRequest: func(w httptrace.WroteRequestInfo) {
			if w.Err == nil {
				wrote.Store(true)
			}
		}}
		out, err := cs.CallTool(httptrace.WithClientTrace(withCallID(ctx, id), trace), params)
		if err != nil {
			e.drop(cs)
			if ctx.Err() != nil {
				return failure(starhost.ErrCancelled, "the caller's context ended"), true, nil
			}
			if !wrote.Load() {
				return res, false, err // it never reached the executor
			}
			return failure(starhost.ErrToolInterrupted, fmt.Sprintf("executor %s was lost during the call: %v", e.name, err)), true, nil
		}
		code, _ := out.Meta[MetaCode].(string)
		if notStarted, _ := out.Meta[MetaNotStarted].(bool); notStarted {
			if code == CodeBundleMissing && attempt == 0 {
				e.mu.Lock()
				delete(e.held, a.Fingerprint)
				e.mu.Unlock()
				if err := e.ensure(ctx, a); err != nil {
					return res, false, err
				}
				continue
			}
			return res, false, errors.New(resultText(out))
		}
		return convert(out, code), true, nil
	}
	return res, false, errors.New("the executor lost the bundle again after an upload")
}

// convert reads an executor's answer: a failure keeps its code and cause.
func convert(out *mcp.CallToolResult, code string) starhost.ToolResult {
	if !out.IsError {
		return toolsets.Result(out)
	}
	msg := strings.TrimPrefix(resultText(out), code+": ")
	res := failure(starhost.Code(code), msg)
	if cause, ok := out.Meta[mcpserve.CauseMetaKey].(string); ok {
		res.Error.Cause = starhost.Cause(cause)
	}
	return res
}

func resultText(out *mcp.CallToolResult) string {
	var parts []string
	for _, c := range out.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

type callIDKey struct{}

func withCallID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, callIDKey{}, id)
}

// authTransport adds the bearer token, and the call id as Idempotency-Key:
// Go's transport then resends a call whose kept-alive connection turned
// out closed before the request was written, which is safe because the
// executor runs a call id once.
type authTransport struct {
	base  http.RoundTripper
	token string
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	id, _ := req.Context().Value(callIDKey{}).(string)
	if t.token == "" && id == "" {
		return t.base.RoundTrip(req)
	}
	req = req.Clone(req.Context())
	if t.token != "" {
		req.Header.Set("Authorization", "Bearer "+t.token)
	}
	if id != "" {
		req.Header.Set("Idempotency-Key", id)
	}
	return t.base.RoundTrip(req)
}
