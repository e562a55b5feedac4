package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/internal/testkit"
)

// TestConsoleCommandsAreListedAndDocumented proves the console's command
// table is the whole console: every verb, alias included, runs (a verb the
// table missed would be expanded as a plugin command and answer "unknown
// command"), /help lists it and docs/cli.md documents it.
func TestConsoleCommandsAreListedAndDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	testkit.Plugin{ID: "acme.hello"}.Write(t, filepath.Join(dir, "plug"))
	t.Setenv("CRYSTAL_HOME", filepath.Join(dir, "home"))
	t.Chdir(dir)
	var input strings.Builder
	input.WriteString("/help\n")
	for _, cmd := range consoleCommands {
		if cmd.quit || cmd.info.Name == "wait" {
			continue
		}
		input.WriteString("/" + cmd.info.Name + "\n")
	}
	var stdout, stderr strings.Builder
	if code := run([]string{"dev", "plug"}, strings.NewReader(input.String()), &stdout, &stderr); code != 0 {
		t.Fatalf("dev: exit %d\n%s", code, stderr.String())
	}
	out := stdout.String()
	help, _, _ := strings.Cut(out[strings.Index(out, "/help"):], "\n/wait")
	for _, verb := range consoleVerbs() {
		if !strings.Contains(string(doc), "`/"+verb) {
			t.Errorf("docs/cli.md does not document /%s", verb)
		}
		if verb != "wait" && !regexp.MustCompile(`/`+verb+`[ ,)]`).MatchString(help) {
			t.Errorf("/help does not list /%s", verb)
		}
		if strings.Contains(out, "/"+verb+": unknown command") {
			t.Errorf("/%s is not run by the console", verb)
		}
	}
	if !strings.Contains(out, "/wait REGEX") {
		t.Errorf("/help does not name /wait:\n%s", out)
	}
}
