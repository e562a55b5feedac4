package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/internal/testkit"
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
		indent := "" // of the opening fence: a block in a list item is indented
		for i, line := range strings.Split(string(data), "\n") {
			fence := strings.HasPrefix(strings.TrimLeft(line, " "), "```")
			switch {
			case cur == nil && fence:
				indent = line[:len(line)-len(strings.TrimLeft(line, " "))]
				cur = &docBlock{file: strings.TrimPrefix(f, "../../"), line: i + 1, lang: strings.TrimSpace(line[len(indent)+3:])}
			case cur != nil && fence:
				blocks = append(blocks, *cur)
				cur = nil
			case cur != nil:
				cur.text += strings.TrimPrefix(line, indent) + "\n"
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
		if err := testkit.CopyTree(src, filepath.Join(dir, "plugins")); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
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
		testkit.Plugin{ID: "acme.shown", Manifest: "capabilities = [\"models\", \"data\"]\n", Source: b.text}.Write(t, filepath.Join(ws, dir))
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

// docCommand is one "$ crystal-star …" line of a doc block with the output
// shown below it and, when a "$ echo $?" follows, the exit code.
type docCommand struct {
	args []string
	want []string
	code int // -1: not shown
}

// docCommands parses the "$ " lines of a block.
func docCommands(t *testing.T, b docBlock) []*docCommand {
	var cmds []*docCommand
	var cur *docCommand
	lines := strings.Split(strings.TrimRight(b.text, "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		switch {
		case line == "$ echo $?" && cur != nil && i+1 < len(lines):
			i++
			code, err := strconv.Atoi(lines[i])
			if err != nil {
				t.Errorf("%s: $ echo $? is followed by %q, not an exit code", b, lines[i])
			}
			cur.code = code
		case strings.HasPrefix(line, "$ crystal-star ") || strings.HasPrefix(line, "$ go run ./cmd/crystal-star "):
			args, err := shellWords(line[strings.Index(line, "crystal-star ")+len("crystal-star "):])
			if err != nil {
				t.Errorf("%s: %v", b, err)
			}
			cur = &docCommand{args: args, code: -1}
			cmds = append(cmds, cur)
		case strings.HasPrefix(line, "$ "), strings.HasPrefix(line, "  "):
			// Another program (a pipeline into crystal-star mcp, say) is
			// not run here.
			cur = nil
		case cur != nil && strings.TrimSpace(line) != "":
			cur.want = append(cur.want, line)
		}
	}
	return cmds
}

// shellWords splits a command line the way sh would for the simple quoting
// the docs use: single quotes, double quotes, spaces.
func shellWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated quote in %q", s)
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// docLinePattern turns one line of shown output into a pattern: "…" stands
// for any text, durations and fingerprints for any such value.
func docLinePattern(line string) *regexp.Regexp {
	var b strings.Builder
	for i, part := range strings.Split(line, "…") {
		if i > 0 {
			b.WriteString(".*")
		}
		b.WriteString(regexp.QuoteMeta(part))
	}
	p := b.String()
	p = regexp.MustCompile(`\d+(\\\.\d+)?(ns|µs|ms|s)\b`).ReplaceAllString(p, `[0-9.]+(ns|µs|ms|s)`)
	p = regexp.MustCompile(`sha256:[0-9a-f]{64}`).ReplaceAllString(p, `sha256:[0-9a-f]{64}`)
	return regexp.MustCompile(`^` + p + `$`)
}

// TestDocsCommandsShowTheirOutput runs every "$ crystal-star …" command of
// the docs, in the repository's plugins (docWorkspace) with a fresh home per
// block, and checks that each line shown below it is printed (stdout or
// stderr) and that the exit code shown by "$ echo $?" is the one returned.
func TestDocsCommandsShowTheirOutput(t *testing.T) {
	blocks := docBlocks(t)
	n := 0
	for _, b := range blocks {
		cmds := docCommands(t, b)
		if len(cmds) == 0 {
			continue
		}
		ws := docWorkspace(t, blocks)
		t.Setenv("CRYSTAL_HOME", filepath.Join(ws, "home"))
		for _, c := range cmds {
			n++
			code, stdout, stderr := runCLI(t, ws, append([]string{"--color=never"}, c.args...)...)
			got := strings.Split(strings.TrimRight(stdout+stderr, "\n"), "\n")
			used := make([]bool, len(got))
			for _, want := range c.want {
				re := docLinePattern(want)
				found := false
				for i, line := range got {
					if !used[i] && re.MatchString(line) {
						used[i], found = true, true
						break
					}
				}
				if !found {
					t.Errorf("%s: crystal-star %s: the docs show\n\t%s\nbut it printed:\n%s%s", b, strings.Join(c.args, " "), want, stdout, stderr)
				}
			}
			if c.code >= 0 && code != c.code {
				t.Errorf("%s: crystal-star %s exited %d; the docs show %d", b, strings.Join(c.args, " "), code, c.code)
			}
		}
	}
	if n < 10 {
		t.Errorf("found %d doc commands; the extraction is broken", n)
	}
}

// TestDocsGoldenExample runs testing.md's golden-file scenario as written,
// in the plugin `crystal-star new acme.hello` scaffolds: the file it
// compares against must be the real output.
func TestDocsGoldenExample(t *testing.T) {
	var scenario string
	for _, b := range docBlocks(t) {
		if b.file == "docs/testing.md" && strings.Contains(b.text, "cmp stdout tools.txt") {
			scenario = b.text
		}
	}
	if scenario == "" {
		t.Fatal("docs/testing.md shows no golden-file scenario (cmp stdout tools.txt)")
	}
	dir := t.TempDir()
	t.Setenv("CRYSTAL_HOME", filepath.Join(dir, "home"))
	if code, out, errOut := runCLI(t, dir, "new", "acme.hello", "--dir", "hello"); code != 0 {
		t.Fatalf("new: exit %d\n%s%s", code, out, errOut)
	}
	if err := os.WriteFile(filepath.Join(dir, "hello", "testdata", "tools.txtar"), []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCLI(t, dir, "test", "hello", "-run", "tools"); code != 0 {
		t.Errorf("the golden-file scenario of docs/testing.md fails as written (exit %d):\n%s%s", code, out, errOut)
	}
}

// TestDocsCurlExchange: docs/mcp.md shows the curl exchange that the
// scenario mcp_http_curl runs against the real server, as written.
func TestDocsCurlExchange(t *testing.T) {
	scenario, err := os.ReadFile("../../testdata/script/mcp_http_curl.txtar")
	if err != nil {
		t.Fatal(err)
	}
	_, script, _ := strings.Cut(string(scenario), "-- exchange.sh --\n")
	script, _, _ = strings.Cut(script, "\n-- ")
	doc, err := os.ReadFile("../../docs/mcp.md")
	if err != nil {
		t.Fatal(err)
	}
	if script == "" || !strings.Contains(string(doc), "```sh\n"+script+"\n```") {
		t.Errorf("docs/mcp.md does not show exchange.sh of testdata/script/mcp_http_curl.txtar as written:\n%s", script)
	}
}

// TestDocsHaveNoMergeLeftovers fails on a line a half-resolved merge left
// in a tracked text file: docs and code alike must read as one text.
func TestDocsHaveNoMergeLeftovers(t *testing.T) {
	markers := []string{strings.Repeat("<", 7) + " ", strings.Repeat(">", 7) + " ", strings.Repeat("=", 7) + "\n"}
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		switch filepath.Ext(path) {
		case ".go", ".md", ".txtar", ".star", ".toml":
		default:
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.SplitAfter(string(data), "\n") {
			for _, m := range markers {
				if strings.HasPrefix(line, m) {
					t.Errorf("%s:%d: a merge conflict marker %q", path, i+1, strings.TrimSpace(m))
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
