package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The tests of this file keep the documentation honest: every plugin shown
// in README.md and docs/*.md passes `crystal-star check`, and every
// `$ crystal-star …` command shown with its output prints that output.

// docBlock is one fenced code block of a markdown file.
type docBlock struct {
	file string // relative to the repository root
	line int    // of the opening fence
	lang string
	text string
}

func (b docBlock) String() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

// docBlocks returns the fenced blocks of README.md and docs/*.md.
func docBlocks(t *testing.T) []docBlock {
	t.Helper()
	files, _ := filepath.Glob("../../docs/*.md")
	files = append([]string{"../../README.md"}, files...)
	var blocks []docBlock
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cur *docBlock
		for i, line := range strings.Split(string(data), "\n") {
			switch {
			case cur == nil && strings.HasPrefix(line, "```"):
				cur = &docBlock{file: strings.TrimPrefix(f, "../../"), line: i + 1, lang: strings.TrimSpace(line[3:])}
			case cur != nil && strings.HasPrefix(line, "```"):
				blocks = append(blocks, *cur)
				cur = nil
			case cur != nil:
				cur.text += line + "\n"
			}
		}
	}
	return blocks
}

// docFileHeader matches a block that shows one file of a plugin: its first
// line is a comment naming the path, "# plugins/hello/plugin.star".
var docFileHeader = regexp.MustCompile(`\A# (plugins/[a-z0-9_-]+/[a-z0-9_./-]+)\n`)

// docWorkspace makes the directory doc commands run in: plugins/ holds the
// repository's example plugins, the plugin files the docs show with a
// "# plugins/NAME/FILE" header, and testdata/docs/plugins (plugins the docs
// show only through their output, such as the broken plugins/draft).
func docWorkspace(t *testing.T, blocks []docBlock) string {
	t.Helper()
	dir := t.TempDir()
	for _, src := range []string{"../../plugins", "../../testdata/docs/plugins"} {
		copyTree(t, src, filepath.Join(dir, "plugins"))
	}
	for _, b := range blocks {
		if m := docFileHeader.FindStringSubmatch(b.text); m != nil {
			path := filepath.Join(dir, filepath.FromSlash(m[1]))
			os.MkdirAll(filepath.Dir(path), 0o755)
			if err := os.WriteFile(path, []byte(b.text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
}

// runCLI runs the CLI in dir and returns its exit code and output.
func runCLI(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestDocsPluginsPassCheck extracts every plugin the docs show — a python
// block that calls contribute() and elides nothing ("..." or "…") — and
// runs `crystal-star check` on it: it must report no error.
func TestDocsPluginsPassCheck(t *testing.T) {
	blocks := docBlocks(t)
	ws := docWorkspace(t, blocks)
	t.Setenv("CRYSTAL_HOME", filepath.Join(ws, "home"))
	n := 0
	// Plugins shown file by file ("# plugins/NAME/plugin.star") are checked
	// together, so the dependencies among them resolve.
	var together []string
	for _, b := range blocks {
		if b.lang != "python" || !strings.Contains(b.text, "contribute(") ||
			strings.Contains(b.text, "...") || strings.Contains(b.text, "…") {
			continue
		}
		n++
		if m := docFileHeader.FindStringSubmatch(b.text); m != nil {
			together = append(together, filepath.Dir(filepath.FromSlash(m[1])))
			continue
		}
		dir := filepath.Join("shown", strconv.Itoa(n))
		os.MkdirAll(filepath.Join(ws, dir), 0o755)
		os.WriteFile(filepath.Join(ws, dir, "plugin.toml"), []byte("id = \"acme.shown\"\nversion = \"1.0.0\"\ncapabilities = [\"models\", \"data\"]\n"), 0o644)
		os.WriteFile(filepath.Join(ws, dir, "plugin.star"), []byte(b.text), 0o644)
		if code, out, errOut := runCLI(t, ws, "check", "--color=never", dir); code != 0 {
			t.Errorf("%s: the plugin shown fails crystal-star check (exit %d):\n%s%s", b, code, out, errOut)
		}
	}
	if code, out, errOut := runCLI(t, ws, append([]string{"check", "--color=never"}, together...)...); code != 0 {
		t.Errorf("the plugins shown file by file (%s) fail crystal-star check (exit %d):\n%s%s", together, code, out, errOut)
	}
	if n < 8 {
		t.Errorf("found %d plugins in the docs; the extraction is broken", n)
	}
}
