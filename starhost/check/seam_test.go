package check_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/check"
)

// TestH25_5_CheckIsOutsideTheRoot: the check tool lives here, not in
// starhost's root, and the root does not import it (issue 25 point 5).
func TestH25_5_CheckIsOutsideTheRoot(t *testing.T) {
	matches, err := filepath.Glob("../check*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range matches {
		if filepath.Base(m) != "check_seam.go" {
			t.Errorf("%s: the check tool belongs in starhost/check", m)
		}
	}
	_, files := testkit.GoFiles(t, "..")
	for _, f := range files {
		for _, im := range f.Imports {
			if strings.Contains(im.Path.Value, "starhost/check") {
				t.Errorf("starhost imports %s", im.Path.Value)
			}
		}
	}
}

// TestH25_5_SeamErrorsKeepTheirShape: an error check.Plugins builds through the
// seam reads as starhost's errors do and wraps its code.
func TestH25_5_SeamErrorsKeepTheirShape(t *testing.T) {
	_, err := check.Plugins(context.Background(), check.Options{Paths: []string{filepath.Join(t.TempDir(), "none")}})
	if !errors.Is(err, starhost.ErrInvalidOptions) || !strings.HasSuffix(err.Error(), "[invalid_options]") {
		t.Errorf("check.Plugins of no directory: %v; want `… [invalid_options]`", err)
	}
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("check.Plugins of no directory: %v; want it to wrap the stat error", err)
	}
}
