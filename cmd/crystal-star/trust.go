package main

import (
	"errors"
	"fmt"
	"slices"

	"github.com/crystal-star/crystal-star/starhost"
)

var trustCmd = command{name: "trust", args: "grant ID | revoke ID | list", summary: "the trust file: grant, revoke or list grants",
	flags: []flagSpec{{name: "json", help: "print JSON (docs/cli.md)"}, {"fingerprint", "FP", "revoke: only the grant of this fingerprint"},
		{"archive", "FILE", "grant: the bundle packed in FILE (crystal-star pack), as an executor's operator does"}},
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
	if file, ok := f.set["archive"]; ok {
		if verb != "grant" || len(rest) != 0 {
			return usagef("usage: crystal-star trust grant --archive FILE")
		}
		return grantArchive(e, file)
	}
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
		grants, err := h.Operator().Grants()
		if err != nil {
			return err
		}
		if f.has("json") {
			return e.printJSON(grants)
		}
		tw := newTable(e.stdout)
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
			res, err = h.Operator().Grant(e.ctx, rest[0])
		} else {
			res, err = h.Operator().Revoke(e.ctx, rest[0], f.set["fingerprint"])
		}
		return e.printOp(res, e.nearestPlugin(err, rest[0]), f.has("json"))
	}
	return usagef("unknown trust command %q; want grant, revoke or list", verb)
}

// printOp prints an operation's outcome (DC29): applied, no_change or
// not_applied, then the plugin's state and blockers with remedies. An
// operation that applied nothing for a reason of its own (ErrNotApplied)
// prints the reason, with the command that resolves it; any other error
// goes to stderr.
func (e *env) printOp(res starhost.OpResult, err error, asJSON bool) error {
	if res.Plugin != nil {
		e.shownPlugin(*res.Plugin, false)
	}
	result, reason := "applied", ""
	switch {
	case errors.Is(err, starhost.ErrNotApplied):
		result, reason = "not_applied", opReason(res, err)
		if !failed(err) {
			err = nil // a reason of the operation's own, not a failure
		}
	case err != nil:
		result = "not_applied"
	case !res.Changed:
		result = "no_change"
	}
	if asJSON {
		out := opJSON{Result: result, Reason: reason}
		if res.Plugin != nil {
			p := toPluginJSON(*res.Plugin)
			out.Plugin = &p
		}
		if perr := e.printJSON(out); perr != nil {
			return perr
		}
	} else {
		fmt.Fprintln(e.stdout, result)
		if reason != "" {
			fmt.Fprintf(e.stdout, "  %s\n", reason)
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
	if result == "not_applied" {
		return &exitError{code: 1}
	}
	return nil
}

// failed reports whether err, an operation's not-applied error, has a
// cause besides codes and notes (a file that could not be read or
// written): some error it wraps, wrapping nothing, is not a Code.
func failed(err error) bool {
	switch e := err.(type) {
	case nil, starhost.Code:
		return false
	case interface{ Unwrap() []error }:
		return slices.ContainsFunc(e.Unwrap(), failed)
	case interface{ Unwrap() error }:
		return failed(e.Unwrap())
	}
	return true
}

// opReason is why an operation applied nothing, with the crystal-star
// command that resolves it where there is one (the library's reasons name
// none).
func opReason(res starhost.OpResult, err error) string {
	if errors.Is(err, starhost.ErrPluginEnabled) && res.Plugin != nil {
		return "plugin " + res.Plugin.ID + " is enabled; run: crystal-star disable " + res.Plugin.ID + ", then install again"
	}
	return err.Error()
}

// opJSON is the stable shape of an operation's --json output.
type opJSON struct {
	Result string      `json:"result"`
	Reason string      `json:"reason,omitempty"`
	Plugin *pluginJSON `json:"plugin"`
}
