package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The tests of this file hold what a newcomer met following README.md and
// docs/ in a fresh clone.

// TestReadme_FreshCloneHasNoWorkspaceState: the README's main command,
// `crystal-star dev plugins` in the clone, uses the clone as its workspace.
// A tracked `.crystal/` (data written by running the example plugins there)
// made every fresh clone start with a DataDirRefused error for acme.notes:
// data in .crystal/data/plugins/notes that no owner record covers. The
// workspace state is the user's: it is neither tracked nor committable.
func TestReadme_FreshCloneHasNoWorkspaceState(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git on PATH")
	}
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	out, err := exec.Command(git, "-C", root, "ls-files", "--", ".crystal").CombinedOutput()
	if err != nil {
		t.Skipf("not a git checkout: %v: %s", err, out)
	}
	if s := strings.TrimSpace(string(out)); s != "" {
		t.Errorf("the repository tracks workspace state a fresh clone then starts with:\n%s", s)
	}
	// git check-ignore exits 0 when the path is ignored.
	if err := exec.Command(git, "-C", root, "check-ignore", "-q", ".crystal/data/plugins/notes/x").Run(); err != nil {
		t.Errorf(".gitignore does not ignore the clone's own .crystal/ (git check-ignore: %v)", err)
	}
}
