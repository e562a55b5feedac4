// Package live lets the short-lived hook and status-line processes an
// agent host starts reach the long-lived process that serves the same
// agent session — the `crystal-star mcp` server the agent host started for
// it — so plugin state (ctx.store, status fields, counters of a policy) is
// the session's, not the process's.
//
// The live process listens on a Unix socket named after a key both sides
// can compute, in a directory only the user can open (Dir): the agent
// session's id where the agent host gives it to its MCP server (Claude
// Code), else the agent host's process — its pid and start time — which
// is the parent of the MCP server and an ancestor of every hook (Gemini
// CLI; ParentKey, Ancestors). A hook process asks Forward with its keys
// (Keys); when nobody listens, or the live process serves another agent
// session, it serves the event itself, from disk (one-shot). One request
// per connection: a JSON line with the command and its stdin, answered by
// a JSON line with what to print and the exit code. Two sessions have two
// live hosts, so they never see each other's state.
package live

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Request is what a hook or status-line process forwards.
type Request struct {
	// Command is "hook" or "statusline"; Agent the agent host
	// ("claude-code", "gemini-cli").
	Command, Agent string
	// FailOpen is the hook's --fail-open.
	FailOpen bool `json:",omitempty"`
	// Timeout bounds the live process's work on the request (the hook's
	// --timeout); 0 leaves it to the caller's deadline.
	Timeout time.Duration `json:",omitempty"`
	// Input is the process's stdin.
	Input []byte
}

// Reply is what the live process answers: the forwarding process prints
// Stdout and Stderr and exits with Exit.
type Reply struct {
	Stdout []byte
	Stderr string `json:",omitempty"`
	Exit   int    `json:",omitempty"`
	// OtherSession says the live process serves another agent session:
	// the caller looks further, or serves the event itself.
	OtherSession bool `json:",omitempty"`
}

// Handler serves one forwarded request in the live process.
type Handler func(ctx context.Context, req Request) Reply

// maxSocketPath is the longest socket path every Unix takes (sun_path).
const maxSocketPath = 103

// maxMessage bounds one request or reply.
const maxMessage = 32 << 20

// Dir is the directory of the live sockets: $XDG_RUNTIME_DIR/crystal-star,
// else crystal-star-UID in the temporary directory. It is created with
// mode 0700 and refused when it is not a directory of this user that only
// this user can open.
func Dir() (string, error) {
	dir := dirName()
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", err
	}
	if err := private(dir); err != nil {
		return "", err
	}
	return dir, nil
}

func dirName() string {
	if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" {
		return filepath.Join(rt, "crystal-star")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("crystal-star-%d", os.Getuid()))
}

// Path is the socket of the agent session id: a hash of the id, so any id
// makes a short, safe file name.
func Path(dir, session string) string {
	sum := sha256.Sum256([]byte(session))
	return filepath.Join(dir, hex.EncodeToString(sum[:8])+".sock")
}

// Server is a live process's listener for one agent session.
type Server struct {
	ln   *net.UnixListener
	path string
	file os.FileInfo // the socket file as created, to remove only our own
	wg   sync.WaitGroup
}

// Listen starts serving session's socket with h until ctx ends or Close.
// The newest live process of a session wins: an agent host that restarts
// its MCP server talks to the new one, so a socket already there — left by
// a process that died, or held by an older one — is replaced, and the
// older process, when it closes, leaves the new socket alone.
func Listen(ctx context.Context, session string, h Handler) (*Server, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	path := Path(dir, session)
	if len(path) > maxSocketPath {
		return nil, fmt.Errorf("the live socket's path %s is longer than a Unix socket allows: set XDG_RUNTIME_DIR to a shorter directory", path)
	}
	_ = os.Remove(path)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, err
	}
	ln.SetUnlinkOnClose(false) // Close removes the file only while it is ours
	fi, err := os.Lstat(path)
	if err == nil {
		err = os.Chmod(path, 0o600)
	}
	if err != nil {
		ln.Close()
		return nil, err
	}
	s := &Server{ln: ln, path: path, file: fi}
	s.wg.Add(1)
	go s.accept(ctx, h)
	go func() { <-ctx.Done(); s.Close() }()
	return s, nil
}

// Path is the socket the server listens on.
func (s *Server) Path() string { return s.path }

// Close stops listening, removes the socket unless a newer live process
// of the session replaced it, and waits for the requests in progress.
func (s *Server) Close() error {
	err := s.ln.Close()
	if fi, statErr := os.Lstat(s.path); statErr == nil && os.SameFile(fi, s.file) {
		_ = os.Remove(s.path)
	}
	s.wg.Wait()
	return err
}

func (s *Server) accept(ctx context.Context, h Handler) {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return // closed
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer c.Close()
			serveConn(ctx, c, h)
		}()
	}
}

func serveConn(ctx context.Context, c net.Conn, h Handler) {
	var req Request
	r := bufio.NewReader(&limited{c, maxMessage})
	line, err := r.ReadBytes('\n')
	if err != nil || json.Unmarshal(line, &req) != nil {
		return
	}
	if req.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, req.Timeout)
		defer cancel()
	}
	var rep Reply
	func() {
		defer func() {
			if p := recover(); p != nil {
				rep = Reply{Stderr: fmt.Sprintf("note: the live crystal-star crashed serving the %s: %v\n", req.Command, p), Exit: 1}
			}
		}()
		rep = h(ctx, req)
	}()
	b, _ := json.Marshal(rep)
	_, _ = c.Write(append(b, '\n'))
}

// ErrNoLive says no live process serves the session: serve it one-shot.
var ErrNoLive = errors.New("no live crystal-star serves this agent session")

// Call forwards req to the live process of session (a key: an agent
// session's id, or a process's, ParentKey). It returns ErrNoLive when
// nobody listens (no socket, or a stale one) or the live process serves
// another agent session (Reply.OtherSession), and another error when
// the live process took the request but did not answer in time or well,
// so the caller can say what happened before it serves the event itself.
func Call(ctx context.Context, session string, req Request) (Reply, error) {
	if session == "" {
		return Reply{}, ErrNoLive
	}
	dir := dirName()
	if private(dir) != nil {
		return Reply{}, ErrNoLive
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", Path(dir, session))
	if err != nil {
		return Reply{}, ErrNoLive
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	}
	b, _ := json.Marshal(req)
	if _, err := c.Write(append(b, '\n')); err != nil {
		return Reply{}, fmt.Errorf("forwarding to the live crystal-star: %w", err)
	}
	line, err := bufio.NewReader(&limited{c, maxMessage}).ReadBytes('\n')
	if err != nil {
		return Reply{}, fmt.Errorf("the live crystal-star did not answer: %w", err)
	}
	var rep Reply
	if err := json.Unmarshal(line, &rep); err != nil {
		return Reply{}, fmt.Errorf("the live crystal-star answered garbage: %w", err)
	}
	if rep.OtherSession {
		return Reply{}, ErrNoLive
	}
	return rep, nil
}

// Forward forwards req to the first live process of keys (Keys) that
// serves it. It returns ErrNoLive when none does, and Call's other errors
// as they come.
func Forward(ctx context.Context, keys []string, req Request) (Reply, error) {
	for _, k := range keys {
		rep, err := Call(ctx, k, req)
		if !errors.Is(err, ErrNoLive) {
			return rep, err
		}
	}
	return Reply{}, ErrNoLive
}

// limited reads at most n bytes of r.
type limited struct {
	r interface{ Read([]byte) (int, error) }
	n int64
}

func (l *limited) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, errors.New("message too large")
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}
