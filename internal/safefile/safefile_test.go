package safefile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
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

func TestDC19_WriteFileLeavesNoTempFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	for _, content := range []string{"first\n", "second, longer\n", ""} {
		if err := WriteFile(path, []byte(content), 0o640); err != nil {
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
	if err := WriteFile(target, []byte("new"), 0o600); err == nil {
		t.Error("writing over a directory succeeded")
	}
	if got, err := os.ReadFile(filepath.Join(target, "keep")); err != nil || string(got) != "kept" {
		t.Errorf("directory content changed: %q, %v", got, err)
	}

	// The parent does not exist: nothing is created.
	if err := WriteFile(filepath.Join(dir, "missing", "f"), []byte("new"), 0o600); err == nil {
		t.Error("writing into a missing directory succeeded")
	}

	// A regular file whose replacement fails at the rename keeps its bytes.
	old := filepath.Join(dir, "config.toml")
	os.WriteFile(old, []byte("old"), 0o600)
	rename = func(string, string) error { return errors.New("injected rename failure") }
	t.Cleanup(func() { rename = os.Rename })
	if err := WriteFile(old, []byte("new"), 0o600); err == nil {
		t.Error("the injected failure was not reported")
	}
	if got, _ := os.ReadFile(old); string(got) != "old" {
		t.Errorf("old file now holds %q", got)
	}

	if names := dirNames(t, dir); !slices.Equal(names, []string{"config.toml", "plugin-trust.json"}) {
		t.Errorf("temporary files left behind: %v", names)
	}
}

func TestDC19_LockExcludesOtherHolders(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plugin-trust.json.lock")
	unlock, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	acquired := make(chan func() error)
	go func() {
		second, err := Lock(path)
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

// TestReplaceKeepsModeAndLinks proves Replace keeps what the operator made
// of a file: a file chmod-ed 0600 stays 0600, a symbolic link stays a link
// and the file it points to gets the content; a new file gets perm.
func TestReplaceKeepsModeAndLinks(t *testing.T) {
	dir := t.TempDir()
	private := filepath.Join(dir, "config.toml")
	os.WriteFile(private, []byte("old"), 0o600)
	link := filepath.Join(dir, "link.star")
	if err := os.Symlink("config.toml", link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	for _, c := range []struct {
		name, path string
		want       os.FileMode
	}{
		{"existing file keeps its mode", private, 0o600},
		{"through a link", link, 0o600},
		{"new file gets perm", filepath.Join(dir, "new.toml"), 0o644},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := Replace(c.path, []byte(c.name), 0o644); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(c.path); string(got) != c.name {
				t.Errorf("content = %q", got)
			}
			if st, err := os.Stat(c.path); err != nil || st.Mode().Perm() != c.want {
				t.Errorf("mode = %v, %v; want %v", st.Mode().Perm(), err, c.want)
			}
		})
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a file: %v, %v", st.Mode(), err)
	}
}

// TestEditNeverOverwritesAnUnreadableFile proves Edit writes nothing when
// the file cannot be read or its content cannot be parsed, nor when change
// reports no change.
func TestEditNeverOverwritesAnUnreadableFile(t *testing.T) {
	dir := t.TempDir()
	parseErr := errors.New("line 1: not TOML")
	for _, c := range []struct {
		name   string
		path   string
		change func([]byte) ([]byte, bool, error)
		isDir  bool
	}{
		{"change refuses the content", filepath.Join(dir, "broken.toml"),
			func([]byte) ([]byte, bool, error) { return []byte("new"), true, parseErr }, false},
		{"no change", filepath.Join(dir, "same.toml"),
			func([]byte) ([]byte, bool, error) { return []byte("new"), false, nil }, false},
		{"unreadable (a directory)", filepath.Join(dir, "dir.toml"),
			func([]byte) ([]byte, bool, error) { return []byte("new"), true, nil }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.isDir {
				os.Mkdir(c.path, 0o755)
			} else {
				os.WriteFile(c.path, []byte("old ["), 0o644)
			}
			wrote, err := Edit(c.path, 0o644, c.change)
			if wrote {
				t.Error("Edit wrote the file")
			}
			if c.name == "no change" && err != nil || c.name != "no change" && err == nil {
				t.Errorf("err = %v", err)
			}
			if got, _ := os.ReadFile(c.path); !c.isDir && string(got) != "old [" {
				t.Errorf("the file now holds %q", got)
			}
		})
	}
}

// TestEditLosesNoConcurrentChange proves the lock serialises edits: eight
// goroutines each append a line, and every line is there.
func TestEditLosesNoConcurrentChange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "list")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			_, err := Edit(path, 0o600, func(data []byte) ([]byte, bool, error) {
				return fmt.Appendf(data, "%d\n", i), true, nil
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	data, _ := os.ReadFile(path)
	if lines := strings.Count(string(data), "\n"); lines != 8 {
		t.Errorf("%d of 8 lines survived:\n%s", lines, data)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("new file mode = %v, %v; want 0600", st.Mode(), err)
	}
}
