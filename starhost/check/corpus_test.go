package check_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/check"
	_ "github.com/crystal-star/crystal-star/starhost/format" // the Style* warnings of the corpus
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/check")

// checkCorpus holds one broken plugin (or a directory of plugins, for
// cross-plugin rules) per case, each with want.txt: the lines `crystal-star
// check` prints for it, paths relative to checkCorpus.
const checkCorpus = "../../testdata/check"

// checkTestOptions are the options of the corpus runs: the CLI's built-in
// names, an empty home and a small step budget so the too_many_steps case
// is quick.
func checkTestOptions(t testing.TB, root string) starhost.Options {
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	return starhost.Options{
		Home: t.TempDir(), Workspace: t.TempDir(), Steps: 200_000,
		BuiltinTools:        []string{"read", "write", "edit", "bash", "grep", "glob", "skill"},
		HostPlaceholders:    []string{"mode", "workspace", "session_id", "approval_mode", "provider", "model"},
		BuiltinStatusFields: []string{"model", "thinking", "tier", "speed", "context", "cwd", "mode", "approval"},
		BuiltinCommands: []string{"help", "quit", "exit", "plugins", "tools", "call", "render", "reload",
			"statusline", "model", "thinking", "tier", "speed", "approval", "classify", "prompt", "hook", "points"},
		Display: func(dir string) string {
			rel, err := filepath.Rel(abs, dir)
			if err != nil {
				t.Fatal(err)
			}
			return filepath.ToSlash(rel)
		},
	}
}

// renderCheck is the human output of `crystal-star check`.
func renderCheck(r *check.Report) string {
	var b strings.Builder
	for _, d := range r.Diagnostics {
		b.WriteString(check.Line(d) + "\n")
	}
	b.WriteString(r.Summary() + "\n")
	return b.String()
}

func corpusCases(t *testing.T) []string {
	entries, err := os.ReadDir(checkCorpus)
	if err != nil {
		t.Fatal(err)
	}
	var cases []string
	for _, e := range entries {
		if e.IsDir() {
			cases = append(cases, e.Name())
		}
	}
	return cases
}

// TestCheckCorpus checks each broken plugin of testdata/check against its
// golden want.txt. Run with -update to rewrite the goldens, then review
// the diff.
func TestCheckCorpus(t *testing.T) {
	cases := corpusCases(t)
	if len(cases) < 40 {
		t.Errorf("the corpus has %d cases; want at least 40", len(cases))
	}
	for _, name := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r, err := check.Plugins(context.Background(), check.Options{
				Paths: []string{filepath.Join(checkCorpus, name)}, Options: checkTestOptions(t, checkCorpus)})
			if err != nil {
				t.Fatal(err)
			}
			got := renderCheck(r)
			golden := filepath.Join(checkCorpus, name, "want.txt")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./starhost -run TestCheckCorpus -update)", err)
			}
			if got != string(want) {
				t.Errorf("check %s:\n got:\n%s\nwant:\n%s", name, got, want)
			}
		})
	}
}

// notStatic lists the codes that no check of a plugin's files can produce,
// with the reason; every other code of the catalogue must be shown by the
// corpus.
var notStatic = map[contrib.Code]string{
	contrib.ExecutorUnavailable:             "about an executor at run time; check starts none",
	contrib.RemoteBundleRefused:             "an executor's answer to an upload; check uploads nothing",
	contrib.PluginDisabled:                  "a note; disabled plugins are checked like any other",
	contrib.ContentDropped:                  "a note about one tool result for one session model",
	contrib.PluginUntrusted:                 "check runs without trust",
	contrib.PluginTrustModified:             "check runs without trust",
	contrib.TrustFileUnreadable:             "check reads no trust file",
	contrib.PluginContributionQuiesceFailed: "the result of a plugin operation, not of a plugin's files",
	contrib.HostPanic:                       "a host bug, not a plugin mistake",
	contrib.PrintNote:                       "a note; print() output is not a finding",
	contrib.CallbackFailed:                  "callbacks never run in a dry run",
	contrib.CommandOutput:                   "callbacks never run in a dry run",
	contrib.CommandFailed:                   "callbacks never run in a dry run",
	contrib.NoneEntry:                       "a note; a None entry is a legitimate way to leave an entry out",
	contrib.ExternalToolShadowed:            "external tools belong to the embedding host, not to plugins",
	contrib.PlaceholderFailed:               "resolve never runs in a dry run",
	contrib.WatchFailed:                     "a failure of the file watcher, not of a plugin's files",
	contrib.ConfigUnknownKey:                "check reads no config.toml",
	contrib.ConfigUnreadable:                "check reads no config.toml",
	contrib.ConfigValueInvalid:              "check reads no config.toml",
	contrib.WorkspaceTrustIgnored:           "check reads no trust file",
	contrib.WorkspaceToolSetIgnored:         "about config.toml, not a plugin's files",
	contrib.ToolSetFailed:                   "about a running MCP server, not a plugin's files",
	contrib.ProvidersInvalid:                "check reads no providers.json",
	contrib.ProviderKeyUnset:                "check reads no providers.json",
	contrib.ProviderAdapterMissing:          "check reads no providers.json",
	contrib.ModelUnknown:                    "check reads no config.toml or providers.json",
	contrib.ClientFactoryTaken:              "protocol conflicts are resolved when the host builds a client, never in a dry run",
	contrib.ModelAccess:                     "a note; declaring the models capability is legitimate",
	contrib.ModelClientFailed:               "no model client is built in a dry run",
	contrib.AskUnanswered:                   "a note about one question nobody answered at run time",
	contrib.PointEntrySkipped:               "point entries run only when the host calls their point, never in a dry run",
	contrib.PointOperationFailed:            "point entries run only when the host calls their point, never in a dry run",
	contrib.HookSkipped:                     "hooks run only when the host runs their event, never in a dry run",
	contrib.RawHookRefused:                  "hooks run only when the host runs their event, never in a dry run",
	contrib.RawHookRegistered:               "a note; registering a raw hook is legitimate",
	contrib.CallbackTimeout:                 "a limit of the running host, not a finding about the files",
	contrib.WorkerFailed:                    "a failure of a worker process, not of a plugin's files",
	contrib.IsolationWeakened:               "check reads no config.toml",
	contrib.IsolationUnsupported:            "a limit of process isolation, not a finding about the files",
	contrib.MemoryLimitClamped:              "a note about the limits the host inherited, not about a plugin's files",
	contrib.BackgroundWorkFailed:            "timers never run in a dry run",
	contrib.DataDirRefused:                  "about the data directories on disk, not a plugin's files",
}

var codeInGolden = regexp.MustCompile(`\[([A-Za-z]+)\](;|$)`)

// TestCheckCorpusCoversCatalogue proves that every code check can produce
// has a case in the corpus, and that the codes it cannot produce are listed
// in notStatic with the reason.
func TestCheckCorpusCoversCatalogue(t *testing.T) {
	shown := map[contrib.Code]bool{}
	for _, name := range corpusCases(t) {
		data, err := os.ReadFile(filepath.Join(checkCorpus, name, "want.txt"))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if m := codeInGolden.FindStringSubmatch(line); m != nil {
				shown[contrib.Code(m[1])] = true
			}
		}
	}
	for _, info := range contrib.Catalogue {
		_, excused := notStatic[info.Code]
		switch {
		case shown[info.Code] && excused:
			t.Errorf("code %s is in the corpus but listed in notStatic", info.Code)
		case !shown[info.Code] && !excused:
			t.Errorf("code %s has no case in %s; add one (or a reason to notStatic)", info.Code, checkCorpus)
		}
	}
	for code := range notStatic {
		if _, ok := code.Info(); !ok {
			t.Errorf("notStatic names unknown code %s", code)
		}
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "check.md"))
	if err != nil {
		t.Fatal(err)
	}
	for code := range shown {
		if !strings.Contains(string(doc), "`"+string(code)+"`") {
			t.Errorf("check finds %s, but docs/check.md does not list it", code)
		}
	}
}

// TestCheckExamplePluginsClean proves every example plugin of plugins/
// checks clean: no error, no warning.
func TestCheckExamplePluginsClean(t *testing.T) {
	r, err := check.Plugins(context.Background(), check.Options{Paths: []string{"../../plugins"}, Options: checkTestOptions(t, "../../plugins")})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Plugins) == 0 {
		t.Fatal("no example plugins found")
	}
	for _, d := range r.Diagnostics {
		t.Errorf("%s", check.Line(d))
	}
}

// TestCheckWritesNothing proves check has no effects: the plugin
// directories, the home and the workspace are byte for byte the same
// afterwards.
func TestCheckWritesNothing(t *testing.T) {
	opts := checkTestOptions(t, checkCorpus)
	before := treeOf(t, checkCorpus, opts.Home, opts.Workspace)
	if _, err := check.Plugins(context.Background(), check.Options{Paths: []string{checkCorpus}, Options: opts}); err != nil {
		t.Fatal(err)
	}
	if after := treeOf(t, checkCorpus, opts.Home, opts.Workspace); !slices.Equal(before, after) {
		t.Errorf("check changed files:\nbefore %v\nafter  %v", before, after)
	}
}

func treeOf(t *testing.T, roots ...string) []string {
	var out []string
	for _, root := range roots {
		err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			out = append(out, p+" "+info.Mode().String()+" "+info.ModTime().String())
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestCheckWithoutPathsUsesHostRoots proves that without paths check
// covers what the host would discover: project, dev and home plugins.
func TestCheckWithoutPathsUsesHostRoots(t *testing.T) {
	opts := checkTestOptions(t, checkCorpus)
	opts.Dev = []string{filepath.Join(checkCorpus, "tool_duplicate")}
	opts.Display = nil
	r, err := check.Plugins(context.Background(), check.Options{Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Plugins) != 1 || r.Plugins[0].ID != "acme.notes" {
		t.Fatalf("plugins = %v; want the one dev plugin", r.Plugins)
	}
	if len(r.Diagnostics) != 1 || r.Diagnostics[0].Code != starhost.Code(contrib.ToolDuplicate) ||
		r.Diagnostics[0].Pos.File != "../../testdata/check/tool_duplicate/plugin.star" {
		t.Errorf("diagnostics = %v; want one ToolDuplicate relative to the current directory", r.Diagnostics)
	}
}

func TestCheckMissingPath(t *testing.T) {
	_, err := check.Plugins(context.Background(), check.Options{Paths: []string{"no/such/dir"}, Options: checkTestOptions(t, ".")})
	if err == nil {
		t.Fatal("want an error for a missing path")
	}
}

func TestCheckSummary(t *testing.T) {
	r := &check.Report{Plugins: []check.Plugin{{ID: "a"}, {ID: "b"}}, Diagnostics: []starhost.Note{
		{Severity: starhost.SeverityError}, {Severity: starhost.SeverityError}, {Severity: starhost.SeverityError},
		{Severity: starhost.SeverityWarning}}}
	if got, want := r.Summary(), "3 errors, 1 warning in 2 plugins"; got != want {
		t.Errorf("Summary() = %q; want %q", got, want)
	}
	if got, want := (&check.Report{Plugins: []check.Plugin{{}}}).Summary(), "0 errors, 0 warnings in 1 plugin"; got != want {
		t.Errorf("Summary() = %q; want %q", got, want)
	}
}
