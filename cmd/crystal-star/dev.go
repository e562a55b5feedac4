package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/starhost"
)

func init() {
	commands = append(commands, command{"dev", "hot-reload console: dev [DIR...] [--log FILE]; DIRs are dev plugins; reads /commands on stdin", runDev})
}

// console is the dev console: it prints one line per lifecycle event and
// runs the commands read from stdin, interactive or piped.
type console struct {
	e    *env
	h    *starhost.Host
	log  io.Writer
	mu   sync.Mutex
	cond *sync.Cond
	seen []string // every line printed, for /wait
}

func runDev(e *env, args []string) error {
	f, err := parseFlags(args, nil, []string{"log"})
	if err != nil {
		return err
	}
	e.global.dev = append(e.global.dev, f.args...)
	c := &console{e: e}
	c.cond = sync.NewCond(&c.mu)
	if path, ok := f.set["log"]; ok {
		lf, err := os.Create(path)
		if err != nil {
			return err
		}
		defer lf.Close()
		c.log = lf
	}
	e.events = c.event
	h, err := e.start()
	if err != nil {
		return err
	}
	c.h = h
	// MC8: the console is one session; the host runs each generation's
	// session_started hooks after its attach (now and after every reload).
	facts := h.Facts()
	facts.SessionID = "dev"
	h.SetFacts(facts)
	h.SessionStarted(e.ctx)
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	watchDone := make(chan error, 1)
	watching := make(chan struct{})
	go func() { watchDone <- h.WatchReady(ctx, func() { close(watching) }) }()
	select {
	case <-watching:
	case err := <-watchDone:
		return err
	}
	// The console reprints the operator's line whenever it changes.
	last := h.StatusLine()
	var lastMu sync.Mutex
	defer h.SubscribeStatus(func() {
		line := h.StatusLine()
		lastMu.Lock()
		changed := line != last
		last = line
		lastMu.Unlock()
		if changed {
			c.printf("status: %s", line)
		}
	})()
	active := 0
	ps := h.Plugins()
	for _, p := range ps {
		if p.State == "active" {
			active++
		}
	}
	c.printf("ready: %d plugins, %d active; watching for changes (type /help)", len(ps), active)
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(e.stdin)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	for {
		select {
		case <-e.ctx.Done(): // Ctrl-C
			c.printf("interrupted; shutting down")
			return c.shutdown(cancel, watchDone)
		case line, ok := <-lines:
			if !ok { // end of input
				return c.shutdown(cancel, watchDone)
			}
			if quit := c.run(strings.TrimSpace(line)); quit {
				return c.shutdown(cancel, watchDone)
			}
		}
	}
}

func (c *console) shutdown(cancel context.CancelFunc, watchDone chan error) error {
	cancel()
	<-watchDone
	c.h.SessionEnded(context.Background()) // MC8: /quit, end of input or Ctrl-C
	start := time.Now()
	_ = c.h.Close(context.Background())
	c.printf("stopped in %s", round(time.Since(start)))
	return nil
}

// printf prints one console line on stdout (and the log).
func (c *console) printf(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	c.e.mu.Lock()
	fmt.Fprintln(c.e.stdout, line)
	if c.log != nil {
		fmt.Fprintln(c.log, line)
	}
	c.e.mu.Unlock()
	c.mu.Lock()
	c.seen = append(c.seen, line)
	c.cond.Broadcast()
	c.mu.Unlock()
}

func round(d time.Duration) time.Duration {
	if d > time.Millisecond {
		return d.Round(100 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}

// event prints one lifecycle event.
func (c *console) event(ev starhost.Event) {
	switch ev.Kind {
	case "activated":
		c.printf("loaded %s %s in %s", ev.Plugin, ev.Generation, round(ev.Elapsed))
	case "reloaded":
		c.printf("reloaded %s %s in %s", ev.Plugin, ev.Generation, round(ev.Elapsed))
	case "kept":
		c.printf("kept %s: the new source does not compile; the running generation still serves", ev.Plugin)
	case "faulted":
		c.printf("faulted %s", ev.Plugin)
	case "blocked":
		c.printf("blocked %s", ev.Plugin)
	case "stopped":
		if ev.State == starhost.StateStopped { // switched off (MC5), not a retired generation
			c.printf("stopped %s", ev.Plugin)
		}
	}
}

// run executes one console line; it reports whether to quit.
func (c *console) run(line string) bool {
	if line == "" || strings.HasPrefix(line, "#") {
		return false
	}
	if !strings.HasPrefix(line, "/") {
		c.printf("commands start with /; type /help")
		return false
	}
	verb, rest, _ := strings.Cut(line[1:], " ")
	rest = strings.TrimSpace(rest)
	ctx := c.e.ctx
	switch verb {
	case "quit", "exit":
		return true
	case "help":
		c.helpCommands() // MC6: one listing for /help, `commands` and embedders
		c.printf("/wait REGEX  block until the transcript matches (scripts)")
	case "plugins":
		for _, p := range c.h.Plugins() {
			c.printf("%s %s %s %s %s", p.ID, p.Version, p.State, orDash(p.Generation), p.Directory)
			if r := p.StopReason; r != nil {
				c.printf("  stopped: %s [%s]; %s", r.Message, r.Code, r.Remedy)
			}
			for _, b := range p.Blockers {
				c.printf("  blocked: %s [%s]; %s", b.Message, b.Code, b.Remedy)
			}
			for _, d := range p.Diagnostics {
				c.printf("  %s", d)
			}
		}
		c.printf("%s", reclaimLine(c.h))
	case "tools":
		for _, t := range c.h.PlanTools(ctx, devThread, contrib.PlanAndWork).List() {
			c.printf("%s (%s) %s %s", t.Name, orDash(t.Plugin), t.Catalogs, toolFlags(t))
		}
	case "call":
		name, args, _ := strings.Cut(rest, " ")
		if name == "" {
			c.printf("usage: /call TOOL [JSON]")
			break
		}
		if strings.TrimSpace(args) == "" {
			args = "{}"
		}
		res := c.h.PlanTools(ctx, devThread, contrib.PlanAndWork).Invoke(ctx, name, json.RawMessage(args))
		switch {
		case res.Err != nil:
			c.printf("error %s: %s", res.Err.Code, res.Err.Message)
		case len(res.Parts) > 0:
			for _, line := range partLines(res.Parts) {
				c.printf("%s", line)
			}
		case res.Data != nil:
			c.printf("%s", res.Data)
		default:
			c.printf("%s", res.Text)
		}
	case "render":
		c.printf("%s", c.h.Bind(ctx, rest, starhost.SitePrompt))
	case "reload":
		c.h.Rescan(ctx)
		for _, p := range c.h.Plugins() {
			c.h.Reload(ctx, p.Directory)
		}
		c.printf("reload done")
	case "wait":
		c.wait(rest)
	case "statusline":
		c.statusline(rest)
	default:
		if run, ok := consoleCommands[verb]; ok {
			run(c, rest)
			break
		}
		c.expand(ctx, verb, rest)
	}
	return false
}

// consoleCommands are dev-console verbs added by other files of this
// package in init (each also belongs in cliBuiltinCommands and cliCommandInfo, which /help lists).
var consoleCommands = map[string]func(c *console, rest string){}

// expand runs a plugin or markdown command.
func (c *console) expand(ctx context.Context, name, args string) {
	text, ok, err := c.h.Expand(ctx, name, args)
	switch {
	case err != nil:
		c.printf("%v", err)
	case !ok:
		c.printf("/%s produced no input", name)
	default:
		c.printf("input: %s", text)
	}
}

// wait blocks until the console's transcript — every line printed since it
// started — matches the pattern (multi-line: ^ and $ match at line breaks),
// or 10 seconds pass. Scripts driving the console use it.
func (c *console) wait(pattern string) {
	re, err := regexp.Compile("(?m)" + pattern)
	if err != nil {
		c.printf("/wait: %v", err)
		return
	}
	deadline := time.Now().Add(10 * time.Second)
	timer := time.AfterFunc(10*time.Second, func() {
		c.mu.Lock()
		c.cond.Broadcast()
		c.mu.Unlock()
	})
	defer timer.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		if re.MatchString(strings.Join(c.seen, "\n")) {
			return
		}
		if time.Now().After(deadline) {
			go c.printf("/wait: nothing matched %q within 10s", pattern)
			return
		}
		c.cond.Wait()
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func cutSpace(s string) (string, string, bool) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), " ")
	return a, strings.TrimSpace(b), ok
}
