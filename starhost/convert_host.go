package starhost

import (
	"github.com/crystal-star/crystal-star/lifecycle"
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

func statusFieldsOf(fs []statusline.FieldInfo) []StatusField {
	out := make([]StatusField, len(fs))
	for i, f := range fs {
		out[i] = StatusField(f)
	}
	return out
}

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

func statusRowsOf(rs []statusline.ViewRow) []StatusRow {
	out := make([]StatusRow, len(rs))
	for i, r := range rs {
		out[i] = StatusRow(r)
	}
	return out
}
