package main

import (
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestH29_1_GuardDocExampleIsTested: the guard example that opens the
// guards section of docs/points.md is, byte for byte, the plugin the
// scenario h29_1_guard_fails_open proves denies the call, so the way the
// docs show is the way that works.
func TestH29_1_GuardDocExampleIsTested(t *testing.T) {
	var shown string
	for _, b := range docBlocks(t) {
		if b.file == "docs/points.md" && b.lang == "python" && strings.Contains(b.text, "dispatch_policy(run = deny_rm)") {
			shown = b.text
			break
		}
	}
	if shown == "" {
		t.Fatal("docs/points.md shows no dispatch_policy guard example")
	}
	ar, err := txtar.ParseFile("../../testdata/script/h29_1_guard_fails_open.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if f.Name == "right/plugin.star" {
			if string(f.Data) != shown {
				t.Errorf("docs/points.md's guard example differs from the scenario's right/plugin.star:\n%s\nvs\n%s", shown, f.Data)
			}
			return
		}
	}
	t.Error("the scenario has no right/plugin.star")
}
