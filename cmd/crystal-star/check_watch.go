package main

import (
	"context"
	"fmt"

	"github.com/crystal-star/crystal-star/starhost/check"
)

// checkWatch is `check --watch`: the first run prints every finding and the
// summary, as check does; each later run, after a save, prints only what
// changed — new findings as check prints them, resolved ones prefixed with
// "fixed: ", those a syntax error in their plugin stops from being
// computed prefixed with "hidden by the syntax error: " — and the summary, or nothing when nothing changed. It stops,
// with status 0, when ctx ends (Ctrl-C).
func (e *env) checkWatch(ctx context.Context, opts check.Options, asJSON bool) error {
	if asJSON {
		return usagef("check: --watch prints lines as they change; it cannot be combined with --json")
	}
	first := true
	return check.Watch(ctx, opts, func(r *check.Report, ch check.Change) {
		if ch.Empty() && !first {
			return
		}
		first = false
		for _, d := range ch.Fixed {
			fmt.Fprintln(e.stdout, "fixed: "+check.Line(d))
		}
		for _, d := range ch.Hidden {
			fmt.Fprintln(e.stdout, "hidden by the syntax error: "+check.Line(d))
		}
		for _, d := range ch.Added {
			fmt.Fprintln(e.stdout, check.Line(d))
		}
		fmt.Fprintln(e.stdout, r.Summary())
	})
}
