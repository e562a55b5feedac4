package main

import (
	"context"
	"fmt"

	"github.com/crystal-star/crystal-star/starhost"
)

// checkWatch is `check --watch`: the first run prints every finding and the
// summary, as check does; each later run, after a save, prints only what
// changed — new findings as check prints them, resolved ones prefixed with
// "fixed: ", those a syntax error in their plugin stops from being
// computed prefixed with "hidden by the syntax error: " — and the summary, or nothing when nothing changed. It stops,
// with status 0, when ctx ends (Ctrl-C).
func (e *env) checkWatch(ctx context.Context, opts starhost.CheckOptions, asJSON bool) error {
	if asJSON {
		return usagef("check: --watch prints lines as they change; it cannot be combined with --json")
	}
	first := true
	return starhost.WatchCheck(ctx, opts, func(r *starhost.CheckReport, ch starhost.CheckChange) {
		if ch.Empty() && !first {
			return
		}
		first = false
		for _, d := range ch.Fixed {
			fmt.Fprintln(e.stdout, "fixed: "+starhost.CheckLine(d))
		}
		for _, d := range ch.Hidden {
			fmt.Fprintln(e.stdout, "hidden by the syntax error: "+starhost.CheckLine(d))
		}
		for _, d := range ch.Added {
			fmt.Fprintln(e.stdout, starhost.CheckLine(d))
		}
		fmt.Fprintln(e.stdout, r.Summary())
	})
}
