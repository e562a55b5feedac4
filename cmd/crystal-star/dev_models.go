package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/crystal-star/crystal-star/starhost"
)

// The dev console's session verbs change the live session and review views
// plugins read (CC20): /model, /thinking, /tier, /speed and /approval.
// /model, /thinking, /tier, /speed and /approval model are also saved to
// config.toml (atomically, Session.Save), as the operator expects of
// a setting; /approval thinking lasts for the console session.

// model, thinking, tier and speed are /model, /thinking, /tier and /speed:
// each change is saved.
func (c *console) model(rest string)    { c.setting(rest, saved(c, c.s.SelectModel)) }
func (c *console) thinking(rest string) { c.setting(rest, saved(c, c.s.SetThinking)) }
func (c *console) tier(rest string)     { c.setting(rest, saved(c, unset(c.s.SetServiceTier))) }
func (c *console) speed(rest string)    { c.setting(rest, saved(c, unset(c.s.SetSpeed))) }

// unset maps the console's "unset" to the empty token (tier, speed).
func unset(set func(string) error) func(string) error {
	return func(s string) error {
		if s == "unset" {
			s = ""
		}
		return set(s)
	}
}

// saved makes a change persist: once set succeeds, the session is saved
// to config.toml.
func saved(c *console, set func(string) error) func(string) error {
	return func(s string) error {
		if err := set(s); err != nil {
			return err
		}
		if err := c.s.Save(); err != nil {
			return fmt.Errorf("the change applies now but was not saved: %v", err)
		}
		return nil
	}
}

// setting applies one change, or shows the session when rest is empty.
func (c *console) setting(rest string, set func(string) error) {
	if rest != "" {
		if err := set(rest); err != nil {
			c.printf("error: %v", err)
			return
		}
	}
	c.showSession()
}

// showSession prints the session and review as plugins see them.
func (c *console) showSession() {
	s := c.s.Model()
	if s == nil {
		c.printf("session: no model (set model in config.toml or use /model PROVIDER/MODEL)")
		return
	}
	c.printf("session: %s", describeModel(s))
	if r := c.s.Review(); r != nil && r.Independent {
		c.printf("review: %s", describeModel(&r.Model))
	} else {
		c.printf("review: the session model")
	}
}

func describeModel(f *starhost.ModelFacts) string {
	return fmt.Sprintf("%s/%s thinking=%s tier=%s speed=%s", f.Provider, f.Model, f.Thinking, orDash(f.ServiceTier), orDash(f.Speed))
}

// approval runs /approval MODE, /approval model PROVIDER/MODEL|off and
// /approval thinking LEVEL.
func (c *console) approval(rest string) {
	verb, arg, _ := cutSpace(rest)
	switch verb {
	case "":
		c.printf("approval: %s", orDash(c.s.Facts().ApprovalMode))
		c.showSession()
	case "model":
		c.setting(arg, saved(c, c.s.SelectReviewModel))
	case "thinking":
		c.setting(arg, c.s.SetReviewThinking)
	default:
		f := c.s.Facts()
		f.ApprovalMode = verb
		c.s.SetFacts(f)
		c.printf("approval: %s", verb)
	}
}

// classify runs /classify TOOL [JSON].
func (c *console) classify(rest string) {
	tool, args, _ := cutSpace(rest)
	if tool == "" {
		c.printf("usage: /classify TOOL [JSON]")
		return
	}
	res, err := c.s.Classify(c.e.ctx, tool, json.RawMessage(strings.TrimSpace(args)))
	if err != nil {
		c.printf("/classify: %v", err)
		return
	}
	c.printf("%s: %s", tool, res)
}

// providersEventText is the console line of a providers.json reload.
func providersEventText(ev starhost.Event) string {
	if ev.Kind == "providers-kept" {
		return "kept providers.json: the edit has errors; the previous providers still serve"
	}
	return fmt.Sprintf("reloaded providers.json in %s", round(ev.Elapsed))
}
