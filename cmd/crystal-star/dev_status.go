package main

import (
	"errors"
	"slices"
	"sync"

	"github.com/crystal-star/crystal-star/starhost"
)

// consoleStatus is the dev console's status line (docs/statusline.md, "In
// the dev console"): the operator's saved line, then every field the
// plugins under development declare that is not on it, unless the operator
// removed that field in this console. It is printed once at ready and then
// only when it changes; an empty line is never printed.
type consoleStatus struct {
	mu      sync.Mutex
	ready   bool            // printing starts with the ready line
	last    string          // the line last printed (or saved)
	removed map[string]bool // default fields /statusline remove hid
	// devIDs caches the ids of the dev plugins (Host.Plugins reads the
	// trust file); nil means stale: every lifecycle event clears it.
	devIDs map[string]bool
	epoch  int // counts the clears, so a slow refill cannot store stale ids
}

// forgetPlugins marks the cached dev plugin ids stale.
func (c *console) forgetPlugins() {
	c.status.mu.Lock()
	c.status.devIDs = nil
	c.status.epoch++
	c.status.mu.Unlock()
}

// statusLine is the fields of the line the console shows; none when the
// operator turned the line off.
func (c *console) statusLine() []string {
	cfg := c.h.Config()
	if cfg.StatusLineOff {
		return nil
	}
	names := slices.Clone(cfg.StatusLine)
	for _, name := range c.defaultFields() {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names
}

// defaultFields are the fields of the dev plugins that the operator did not
// remove, in board order.
func (c *console) defaultFields() []string {
	c.status.mu.Lock()
	dev, epoch := c.status.devIDs, c.status.epoch
	c.status.mu.Unlock()
	if dev == nil {
		dev = map[string]bool{}
		for _, p := range c.h.Plugins() {
			if p.Source == starhost.SourceDev {
				dev[p.ID] = true
			}
		}
	}
	c.status.mu.Lock()
	defer c.status.mu.Unlock()
	if c.status.epoch == epoch {
		c.status.devIDs = dev
	}
	var names []string
	for _, f := range c.h.StatusFields() {
		if !f.Builtin && dev[f.Plugin] && !c.status.removed[f.Name] {
			names = append(names, f.Name)
		}
	}
	return names
}

// refreshStatus prints "status: LINE" when the line differs from the last
// one printed and is not empty.
func (c *console) refreshStatus() {
	line := c.s.RenderStatusLine(c.statusLine())
	c.status.mu.Lock()
	changed := c.status.ready && line != "" && line != c.status.last
	if changed {
		c.status.last = line
	}
	c.status.mu.Unlock()
	if changed {
		c.printf("status: %s", line)
	}
}

// startStatus prints the first line, at ready, and every change after it.
func (c *console) startStatus() {
	c.status.mu.Lock()
	c.status.ready = true
	c.status.mu.Unlock()
	c.refreshStatus()
}

// statuslineView prints the /statusline listing (CC16): * marks a field on
// the saved line, + a field of a dev plugin shown by default.
func (c *console) statuslineView() {
	defaults := c.defaultFields()
	for _, r := range c.h.StatusView() {
		mark := " "
		switch {
		case r.OnLine:
			mark = "*"
		case slices.Contains(defaults, r.Name):
			mark = "+"
		}
		owner := "built-in"
		if !r.Builtin {
			owner = r.Plugin
		}
		if r.Unavailable {
			owner += ", unavailable"
		}
		c.printf("%s %-16s %s (%s)", mark, r.Name, r.Description, owner)
	}
}

// statusline runs /statusline [add NAME | remove NAME | on | off | reset].
// Removing a field shown by default hides it for this console; add and
// reset bring hidden fields back.
func (c *console) statusline(rest string) {
	if rest == "" {
		c.statuslineView()
		return
	}
	verb, arg, _ := cutSpace(rest)
	if verb == "remove" && slices.Contains(c.defaultFields(), arg) && !slices.Contains(c.h.Config().StatusLine, arg) {
		c.setRemoved(arg, true)
		c.printf("%s hidden in this console (dev plugins' fields are shown by default); /statusline add %s shows it", arg, arg)
		c.savedStatus()
		return
	}
	switch verb {
	case "add":
		c.setRemoved(arg, false)
	case "reset":
		c.status.mu.Lock()
		c.status.removed = nil
		c.status.mu.Unlock()
	}
	changed, err := c.h.EditStatusLine(verb, arg)
	switch {
	case err != nil && verb == "add" && errors.Is(err, starhost.ErrUnknownStatusField):
		c.printf("/statusline: %v; /statusline lists the fields", err)
	case err != nil:
		c.printf("/statusline: %v", err)
	case !changed:
		c.printf("/statusline: no change")
	default:
		c.printf("status line saved; now: %s", c.savedStatus())
	}
}

func (c *console) setRemoved(name string, removed bool) {
	c.status.mu.Lock()
	defer c.status.mu.Unlock()
	if c.status.removed == nil {
		c.status.removed = map[string]bool{}
	}
	c.status.removed[name] = removed
}

// savedStatus returns the line after an edit and records it as printed, so
// the edit's own message is not followed by a "status:" repeat.
func (c *console) savedStatus() string {
	line := c.s.RenderStatusLine(c.statusLine())
	c.status.mu.Lock()
	c.status.last = line
	c.status.mu.Unlock()
	return line
}
