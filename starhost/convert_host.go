package starhost

import (
	"fmt"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/lifecycle"
	"github.com/crystal-star/crystal-star/starhost/internal/sandbox"
	"github.com/crystal-star/crystal-star/statusline"
)

// Conversions between starhost's own types of the host surface and the
// internal packages' (lifecycle, statusline), so no exported signature of
// starhost names another package's type.

// Stats are host-wide reclaim figures (DC27).
type Stats struct {
	// Reclaiming counts deactivated generations not yet released by the
	// garbage collector.
	Reclaiming int `json:"reclaiming"`
	// LeakedGenerations counts deactivated generations still pinned after
	// at least two garbage collections since their teardown finished.
	LeakedGenerations int `json:"leaked_generations"`
	// RestartRecommended: leaked generations pin memory only a restart
	// frees.
	RestartRecommended bool `json:"restart_recommended"`
}

func statsOf(s lifecycle.Stats) Stats { return Stats(s) }

// StatusField is one status field: built-in or a plugin's, with its
// description and whether its plugin is loaded now (CC15, CC16).
type StatusField struct {
	Name        string
	Description string
	Plugin      string // "" for a built-in field
	Builtin     bool
	Available   bool
}

func statusFieldOf(f statusline.FieldInfo) StatusField { return StatusField(f) }

// StatusRow is one row of the /statusline listing: a field, whether it is
// on the operator's line, or a saved name no field has (Unavailable).
type StatusRow struct {
	Name        string
	Description string
	Plugin      string
	OnLine      bool
	Builtin     bool
	Unavailable bool
}

func statusRowOf(r statusline.ViewRow) StatusRow { return StatusRow(r) }

// noteOf is d as the embedder sees it.
func noteOf(d contrib.Diagnostic) Note {
	return Note{Code: Code(d.Code), Severity: Severity(d.Severity), Plugin: d.Plugin, Pos: Position(d.Pos),
		Message: d.Message, Remedy: d.Remedy, Detail: d.Detail}
}

// notesOf converts a list of diagnostics; nil stays nil.
func notesOf(ds []contrib.Diagnostic) []Note { return sandbox.ConvertAll(ds, noteOf) }

// diagOf is n as the internal packages know it.
func diagOf(n Note) contrib.Diagnostic {
	return contrib.Diagnostic{Code: contrib.Code(n.Code), Severity: contrib.Severity(n.Severity), Plugin: n.Plugin,
		Pos: contrib.Pos(n.Pos), Message: n.Message, Remedy: n.Remedy, Detail: n.Detail}
}

// pluginOf is the embedder's view of a lifecycle projection.
func pluginOf(p lifecycle.Projection) PluginInfo {
	out := PluginInfo{ID: p.ID, Directory: p.Directory, Source: Source(p.Source), DisplayName: p.DisplayName,
		Version: p.Version, Enabled: p.Enabled, State: State(p.State), Generation: p.Generation,
		Fingerprint: p.Fingerprint, Trust: p.Trust, Diagnostics: notesOf(p.Diagnostics),
		TeardownPending: p.TeardownPending, LeakedGenerations: p.LeakedGenerations,
		RestartRecommended: p.RestartRecommended}
	out.Blockers = sandbox.ConvertAll(p.Blockers, blockerOf)
	if r := p.StopReason; r != nil {
		b := blockerOf(*r)
		out.StopReason = &b
	}
	return out
}

func blockerOf(b lifecycle.Blocker) Blocker {
	return Blocker{Code: Code(b.Code), Message: b.Message, Remedy: b.Remedy, Action: Action(b.Action)}
}

// eventOf is the embedder's view of a lifecycle event.
func eventOf(e lifecycle.Event) Event {
	return Event{Plugin: e.Plugin, Kind: EventKind(e.Kind), Generation: e.Generation, State: State(e.State), Elapsed: e.Elapsed}
}

// pointInfoOf is a row of the point table with its resolved entries.
func pointInfoOf(p *contrib.Point, entries []contrib.Resolved) PointInfo {
	out := PointInfo{Name: PointName(p.Name), Keyword: p.Keyword, Title: p.Title, Tiers: fmt.Sprint(p.Tiers),
		Eval: fmt.Sprint(p.Eval), Combine: fmt.Sprint(p.Combine), Failure: fmt.Sprint(p.Failure),
		Signature: p.Signature, Kind: p.Kind, Entries: entriesOf(entries)}
	return out
}

// entriesOf converts a resolved list, in order.
func entriesOf(entries []contrib.Resolved) []PointEntry {
	out := make([]PointEntry, len(entries))
	for i := range entries {
		e := &entries[i]
		out[i] = PointEntry{Origin: e.Origin, Generation: e.Generation, Target: e.Target, Replaced: e.Replaced,
			Order: e.Order, Scope: string(e.Scope), Thread: e.Thread, Handle: e.Handle, Pos: Position(e.Pos), Empty: e.Empty()}
	}
	return out
}
