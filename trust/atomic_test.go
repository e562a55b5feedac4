package trust

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// dirNames lists a directory, to catch stray temporary files.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestDC19_WriteFileAtomicLeavesNoTempFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	for _, content := range []string{"first\n", "second, longer\n", ""} {
		if err := WriteFileAtomic(path, []byte(content), 0o640); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); string(got) != content {
			t.Errorf("content = %q, want %q", got, content)
		}
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v, %v; want 0640", info.Mode(), err)
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{"config.toml"}) {
		t.Errorf("directory holds %v", names)
	}
}

func TestDC19_FailedWriteKeepsTheOldContent(t *testing.T) {
	dir := t.TempDir()

	// The target is a directory: the rename fails and the directory stays as it was.
	target := filepath.Join(dir, "plugin-trust.json")
	os.Mkdir(target, 0o700)
	os.WriteFile(filepath.Join(target, "keep"), []byte("kept"), 0o600)
	if err := WriteFileAtomic(target, []byte("new"), 0o600); err == nil {
		t.Error("writing over a directory succeeded")
	}
	if got, err := os.ReadFile(filepath.Join(target, "keep")); err != nil || string(got) != "kept" {
		t.Errorf("directory content changed: %q, %v", got, err)
	}

	// The parent does not exist: nothing is created.
	if err := WriteFileAtomic(filepath.Join(dir, "missing", "f"), []byte("new"), 0o600); err == nil {
		t.Error("writing into a missing directory succeeded")
	}

	// A regular file whose replacement fails at the rename keeps its bytes.
	old := filepath.Join(dir, "config.toml")
	os.WriteFile(old, []byte("old"), 0o600)
	rename = func(string, string) error { return errors.New("injected rename failure") }
	t.Cleanup(func() { rename = os.Rename })
	if err := WriteFileAtomic(old, []byte("new"), 0o600); err == nil {
		t.Error("the injected failure was not reported")
	}
	if got, _ := os.ReadFile(old); string(got) != "old" {
		t.Errorf("old file now holds %q", got)
	}

	if names := dirNames(t, dir); !slices.Equal(names, []string{"config.toml", "plugin-trust.json"}) {
		t.Errorf("temporary files left behind: %v", names)
	}
}

func TestDC19_LockFileExcludesOtherHolders(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plugin-trust.json.lock")
	unlock, err := LockFile(path)
	if err != nil {
		t.Fatal(err)
	}
	acquired := make(chan func() error)
	go func() {
		second, err := LockFile(path)
		if err != nil {
			t.Error(err)
		}
		acquired <- second
	}()
	select {
	case <-acquired:
		t.Fatal("a second holder took a held lock")
	case <-time.After(100 * time.Millisecond):
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	select {
	case second := <-acquired:
		if second != nil {
			if err := second(); err != nil {
				t.Error(err)
			}
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the lock was not released")
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the lock file should stay: %v", err)
	}
}
