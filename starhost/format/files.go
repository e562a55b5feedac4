package format

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/crystal-star/crystal-star/internal/safefile"
)

// Options configure Files.
type Options struct {
	// Paths are .star files, or directories searched recursively for
	// .star files (directories whose name starts with "." are skipped).
	// A file named explicitly is formatted whatever its extension.
	Paths []string
	// Write rewrites each file whose formatting changed, atomically and
	// keeping its mode (a symbolic link is followed, not replaced).
	Write bool
}

// Result is one file Files looked at.
type Result struct {
	File      string // as given, or joined below the directory given
	Source    []byte
	Formatted []byte // nil when Err is set
	Err       error  // the file could not be read, formatted or written
	Written   bool   // Write was set and the new content is in place
}

// Changed reports whether formatting changed the file.
func (r Result) Changed() bool { return r.Err == nil && !bytes.Equal(r.Source, r.Formatted) }

// Files formats every .star file of opts.Paths, in path order, and
// rewrites changed ones when opts.Write is set. A file that cannot be
// formatted is reported in its result and left untouched; the error is
// non-nil only when a path does not exist.
func Files(opts Options) ([]Result, error) {
	var files []string
	for _, p := range opts.Paths {
		found, err := starFiles(p)
		if err != nil {
			return nil, err
		}
		files = append(files, found...)
	}
	out := make([]Result, 0, len(files))
	for _, f := range files {
		out = append(out, formatFile(f, opts.Write))
	}
	return out, nil
}

// starFiles lists p itself when it is a file, else the .star files below
// it, sorted.
func starFiles(p string) ([]string, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{p}, nil
	}
	var out []string
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && path != p && strings.HasPrefix(d.Name(), "."):
			return filepath.SkipDir
		case !d.IsDir() && strings.HasSuffix(d.Name(), ".star") && d.Type().IsRegular():
			out = append(out, path)
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}

func formatFile(path string, write bool) Result {
	r := Result{File: path}
	if r.Source, r.Err = os.ReadFile(path); r.Err != nil {
		return r
	}
	if r.Formatted, r.Err = Source(filepath.ToSlash(path), r.Source); r.Err != nil || !write || !r.Changed() {
		return r
	}
	err := safefile.Replace(path, r.Formatted, 0o644)
	r.Err, r.Written = err, err == nil
	return r
}
