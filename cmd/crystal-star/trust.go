package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/crystal-star/crystal-star/starhost"
)

var trustCmd = command{name: "trust", args: "grant ID | revoke ID | list", summary: "the trust file: grant, revoke or list grants",
	flags:   []flagSpec{{name: "json", help: "print JSON (docs/cli.md)"}, {"fingerprint", "FP", "revoke: only the grant of this fingerprint"}},
	example: "trust grant acme.review", run: runTrust}

func runTrust(e *env, args []string) error {
	f, err := e.flags(args)
	if err != nil {
		return err
	}
	if len(f.args) == 0 {
		return usagef("usage: crystal-star trust grant|revoke|list [ID]")
	}
	verb, rest := f.args[0], f.args[1:]
	e.deferNotes = true // printOp shows the plugin's state and reasons
	h, err := e.start()
	if err != nil {
		return err
	}
	switch verb {
	case "list":
		if len(rest) != 0 {
			return usagef("usage: crystal-star trust list [--json]")
		}
		grants, err := h.Grants()
		if err != nil {
			return err
		}
		if f.has("json") {
			return e.printJSON(grants)
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		for _, g := range grants {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", g.ID, g.Fingerprint, g.GrantedAt.Format("2006-01-02 15:04:05Z07:00"))
		}
		return tw.Flush()
	case "grant", "revoke":
		if len(rest) != 1 {
			return usagef("usage: crystal-star trust %s ID", verb)
		}
		if verb == "grant" && f.has("fingerprint") {
			return usagef("trust grant takes no --fingerprint: the host computes it from the plugin's content")
		}
		var res starhost.OpResult
		if verb == "grant" {
			res, err = h.Grant(e.ctx, rest[0])
		} else {
			res, err = h.Revoke(e.ctx, rest[0], f.set["fingerprint"])
		}
		return e.printOp(res, e.nearestPlugin(err, rest[0]), f.has("json"))
	}
	return usagef("unknown trust command %q; want grant, revoke or list", verb)
}

// printOp prints an operation's outcome (DC29): applied, no_change or
// not_applied, then the plugin's state and blockers with remedies.
func (e *env) printOp(res starhost.OpResult, err error, asJSON bool) error {
	if res.Plugin != nil {
		e.shownPlugin(*res.Plugin, false)
	}
	if asJSON {
		out := opJSON{Result: string(res.Result), Reason: res.Reason}
		if res.Plugin != nil {
			p := toPluginJSON(*res.Plugin)
			out.Plugin = &p
		}
		if perr := e.printJSON(out); perr != nil {
			return perr
		}
	} else {
		fmt.Fprintln(e.stdout, res.Result)
		if res.Reason != "" {
			fmt.Fprintf(e.stdout, "  %s\n", res.Reason)
		}
		if p := res.Plugin; p != nil {
			fmt.Fprintf(e.stdout, "%s %s %s\n", p.ID, p.Version, p.State)
			printReasons(e.stdout, *p)
		}
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "crystal-star: %v\n", err)
		return &exitError{code: 1}
	}
	if res.Result == starhost.NotApplied {
		return &exitError{code: 1}
	}
	return nil
}

// opJSON is the stable shape of an operation's --json output.
type opJSON struct {
	Result string      `json:"result"`
	Reason string      `json:"reason,omitempty"`
	Plugin *pluginJSON `json:"plugin"`
}
