package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crystal-star/crystal-star/starhost"
)

var devCmd = command{name: "dev", args: "[DIR...]",
	summary: "hot-reload console: DIRs are dev plugins, each save reloads; type /help for the console's commands",
	flags:   []flagSpec{{"log", "FILE", "also write every console line to FILE"}},
	example: "dev plugins/review", run: runDev}

// console is the dev console: it prints one line per lifecycle event and
// runs the commands read from stdin, interactive or piped.
type console struct {
	e    *env
	h    *starhost.Host
	log  *output // --log FILE, made safe as stdout is
	mu   sync.Mutex
	cond *sync.Cond
	seen []string // every line printed, for /wait

	failMu      sync.Mutex
	failing     map[string]bool // plugins whose last attempt failed
	status      consoleStatus
	unsubscribe func()
	checks      *devChecks // check's findings of each dev plugin that loads (dev_check.go)

	// ctx.ask reads the console's next lines while a line runs (dev_ask.go).
	askMu   sync.Mutex
	lines   <-chan string
	serving atomic.Bool
}

func runDev(e *env, args []string) error {
	f, err := e.flags(args)
	if err != nil {
		return err
	}
	e.global.dev = append(e.global.dev, f.args...)
	c := &console{e: e}
	c.cond = sync.NewCond(&c.mu)
	e.ask = c.ask
	if path, ok := f.set["log"]; ok {
		lf, err := os.Create(path)
		if err != nil {
			return err
		}
		defer lf.Close()
		c.log = newOutput(lf)
	}
	c.checks = newDevChecks(c, e.checkHostOptions())
	defer c.checks.stop()
	e.events = c.event
	h, err := e.start()
	if err != nil {
		return err
	}
	c.h = h
	c.checks.start()
	ps := h.Plugins()
	if len(ps) == 0 {
		return nothingFound("dev", "watch")
	}
	// MC8: the console is one session; the host runs each generation's
	// session_started hooks after its attach (now and after every reload).
	facts := h.Session().Facts()
	facts.SessionID = "dev"
	h.Session().SetFacts(facts)
	h.Session().Start(e.ctx)
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	watchDone := make(chan error, 1)
	watching := make(chan struct{})
	go func() { watchDone <- h.Watch(ctx, func() { close(watching) }) }()
	select {
	case <-watching:
	case err := <-watchDone:
		return err
	}
	// The console prints its status line at ready and whenever it changes.
	c.unsubscribe = h.Subscribe(func(ch starhost.Change) {
		if ch.Status {
			c.refreshStatus()
		}
	})
	active := 0
	for _, p := range ps {
		if p.State == "active" {
			active++
		}
	}
	c.printf("ready: %d plugins, %d active; watching for changes (type /help)", len(ps), active)
	c.startStatus()
	lines, stopInput := c.input()
	defer stopInput()
	c.lines = lines
	for {
		select {
		case <-e.ctx.Done(): // Ctrl-C
			c.printf("interrupted; shutting down")
			return c.shutdown(cancel, watchDone)
		case line, ok := <-lines:
			if !ok { // end of input
				return c.shutdown(cancel, watchDone)
			}
			c.serving.Store(true)
			quit := c.run(strings.TrimSpace(line))
			c.serving.Store(false)
			if quit {
				return c.shutdown(cancel, watchDone)
			}
		}
	}
}

func (c *console) shutdown(cancel context.CancelFunc, watchDone chan error) error {
	c.unsubscribe() // the texts the plugins drop at close are no news
	c.checks.stop() // no finding after "stopped"
	cancel()
	<-watchDone
	c.h.Session().End(context.Background()) // MC8: /quit, end of input or Ctrl-C
	start := time.Now()
	_ = c.h.Close(context.Background())
	c.printf("stopped in %s", round(time.Since(start)))
	return nil
}

// printf prints one console line on stdout (and the log). Its arguments
// are plugin-supplied as often as not (descriptions, results, notes); the
// streams make them terminal-safe (output.go).
func (c *console) printf(format string, args ...any) {
	c.print(line{text: fmt.Sprintf(format, args...)})
}

// printDiag prints a diagnostic the way every diagnostic is printed, with
// colour on a coloured stdout and never in the log.
func (c *console) printDiag(indent string, d starhost.Note) {
	l := diagLine(d)
	l.text, l.from, l.to = indent+l.text, l.from+len(indent), l.to+len(indent)
	c.print(l)
}

// print prints l on stdout, coloured as stdout is, and plain in the log and
// the transcript (/wait reads what the screen shows).
func (c *console) print(l line) {
	c.e.mu.Lock()
	c.e.stdout.println(l)
	if c.log != nil {
		c.log.println(l)
	}
	c.e.mu.Unlock()
	c.mu.Lock()
	c.seen = append(c.seen, safe(l.text))
	c.cond.Broadcast()
	c.mu.Unlock()
}

func round(d time.Duration) time.Duration {
	if d > time.Millisecond {
		return d.Round(100 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}

// event prints one lifecycle event. After a failed attempt (kept or
// faulted), the next save that serves — a new generation, or the serving
// content again — says the error is gone, so the old error is not the last
// word on screen.
func (c *console) event(ev starhost.Event) {
	c.forgetPlugins()
	switch ev.Kind {
	case "activated":
		c.printf("loaded %s %s in %s", ev.Plugin, ev.Generation, round(ev.Elapsed))
		c.checks.loaded(ev.Plugin)
	case "reloaded":
		c.printf("reloaded %s %s in %s", ev.Plugin, ev.Generation, round(ev.Elapsed))
		c.checks.loaded(ev.Plugin)
	case "kept":
		c.printf("kept %s: the new source failed; %s still serves", ev.Plugin, ev.Generation)
	case "faulted":
		c.printf("faulted %s", ev.Plugin)
	case "blocked":
		c.printf("blocked %s", ev.Plugin)
	case "stopped":
		if ev.State == starhost.StateStopped { // switched off (MC5), not a retired generation
			c.printf("stopped %s", ev.Plugin)
		}
	case "providers-reloaded", "providers-kept":
		c.printf("%s", providersEventText(ev))
	}
	serving := ev.Kind == "activated" || ev.Kind == "reloaded" || ev.Kind == "unchanged"
	c.failMu.Lock()
	was := c.failing[ev.Plugin]
	switch {
	case ev.Kind == "kept" || ev.Kind == "faulted":
		if c.failing == nil {
			c.failing = map[string]bool{}
		}
		c.failing[ev.Plugin] = true
	case serving || ev.Kind == "blocked":
		delete(c.failing, ev.Plugin)
	}
	c.failMu.Unlock()
	if was && serving {
		c.printf("%s: fixed; serving %s", ev.Plugin, ev.Generation)
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
	if cmd := findConsoleCommand(verb); cmd != nil {
		if cmd.quit {
			return true
		}
		cmd.run(c, strings.TrimSpace(rest))
		return false
	}
	c.expand(c.e.ctx, verb, strings.TrimSpace(rest))
	return false
}

// help is /help: every command from Host.Commands (MC6: one listing for
// /help, `commands` and embedders), then /wait, the verb for scripts.
func (c *console) help(string) {
	c.helpCommands()
	c.printf("%s  %s; Tab completes commands, tools and plugin ids", commandUsage(waitInfo), waitInfo.Description)
}

// plugins is /plugins: each plugin with its state, stop reason, blockers and
// diagnostics, then the reclaim facts.
func (c *console) plugins(string) {
	for _, p := range c.h.Plugins() {
		c.printf("%s %s %s %s %s", p.ID, orDash(p.Version), p.State, orDash(p.Generation), p.Directory)
		if iso := c.h.Isolation(p.ID); iso != starhost.IsolationInProcess {
			c.printf("  isolation: %s", iso)
		}
		if r := p.StopReason; r != nil {
			c.printf("  stopped: %s [%s]; %s", r.Message, r.Code, r.Remedy)
		}
		for _, b := range p.Blockers {
			c.printf("  blocked: %s [%s]; %s", b.Message, b.Code, b.Remedy)
		}
		for _, d := range byPosition(p.Diagnostics) {
			c.printDiag("  ", d)
		}
	}
	c.printf("%s", reclaimLine(c.h))
}

// tools is /tools: the tool catalog, in order.
func (c *console) tools(string) {
	for _, t := range c.h.Tools(c.e.ctx, devThread, starhost.PlanAndWork).List() {
		c.printf("%s (%s) %s %s", t.Name, toolOwner(t), t.Catalogs, toolFlags(t))
	}
}

// call is /call TOOL [JSON]: one tool invocation ({} when no JSON).
func (c *console) call(rest string) {
	ctx := c.e.ctx
	name, args, _ := strings.Cut(rest, " ")
	if name == "" {
		c.printf("usage: /call TOOL [JSON]")
		return
	}
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	res := c.h.Tools(ctx, devThread, starhost.PlanAndWork).Invoke(ctx, name, json.RawMessage(args))
	switch {
	case res.Error != nil:
		c.printf("error %s: %s%s", res.Error.Code, res.Error.Message, c.toolHint(name, res.Error))
	case len(res.Parts) > 0:
		for _, line := range partLines(res.Parts) {
			c.printf("%s", line)
		}
	case res.Data != nil:
		c.printf("%s", res.Data)
	default:
		c.printf("%s", res.Text)
	}
}

// render is /render TEXT: the text bound at the prompt site.
func (c *console) render(rest string) { c.printf("%s", c.h.Bind(c.e.ctx, rest, starhost.SitePrompt)) }

// mode is /mode [plan|work]: in plan mode only read-only tools run (MC4).
func (c *console) mode(rest string) {
	if rest != "" {
		f := c.h.Session().Facts()
		f.Mode = rest
		c.h.Session().SetFacts(f)
	}
	c.printf("mode: %s", c.h.Session().Facts().Mode)
}

// expand runs a plugin or markdown command.
func (c *console) expand(ctx context.Context, name, args string) {
	text, ok, err := c.h.Expand(ctx, name, args)
	switch {
	case errors.Is(err, starhost.ErrUnknownCommand):
		hint := didYouMean(name, c.verbs(), "/")
		if hint == "" {
			hint = "; /help lists the commands"
		}
		c.printf("/%s: unknown command%s", name, hint)
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

// reload rescans the plugin roots and reloads every plugin, or only the
// plugin whose id is given.
func (c *console) reload(id string) {
	ctx := c.e.ctx
	if id != "" {
		for _, p := range c.h.Plugins() {
			if p.ID == id {
				c.h.Reload(ctx, p.Directory)
				c.printf("reload done")
				return
			}
		}
		c.printf("/reload: no plugin %s%s", id, didYouMean(id, c.pluginIDs(), ""))
		return
	}
	c.h.Rescan(ctx)
	for _, p := range c.h.Plugins() {
		c.h.Reload(ctx, p.Directory)
	}
	c.printf("reload done")
}

// toolHint suggests the nearest tool name when a call names no tool.
func (c *console) toolHint(name string, err *starhost.ToolError) string {
	if !errors.Is(err, starhost.ErrUnknownTool) || slices.Contains(c.toolNames(), name) {
		return ""
	}
	return didYouMean(name, c.toolNames(), "")
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
