package plugintest

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/crystal-star/crystal-star/starhost"
)

// Environment variables `crystal-star` honours so that the commands a
// scenario runs see the plugin under test (RunScenarios sets them).
const (
	// EnvDev lists development plugin directories (a path list), as if
	// each were given with --dev.
	EnvDev = "CRYSTAL_DEV"
	// EnvClock set to "manual" makes plugin timers run on a ManualClock
	// that the dev console's /advance DURATION moves.
	EnvClock = "CRYSTAL_CLOCK"
)

// ScenarioTimeout bounds the scenarios of one plugin directory: commands
// still running then are interrupted and the scenario fails.
const ScenarioTimeout = 10 * time.Minute

// RunOptions configure RunScenarios.
type RunOptions struct {
	// Dirs are plugin directories or directories of them; empty means ".".
	Dirs []string
	// Run, when set, selects the scenarios whose name (the file name
	// without .txtar) it matches.
	Run *regexp.Regexp
	// Verbose prints every scenario's transcript, not only failures'.
	Verbose bool
	// Update rewrites the archive files that cmp compares against.
	Update bool
	// Executable is the crystal-star binary scenarios run as
	// `crystal-star`.
	Executable string
	// Out receives one line per scenario and failure transcripts.
	Out io.Writer
}

// RunScenarios runs every DIR/testdata/*.txtar of each plugin directory as
// a testscript scenario, in this process. Each scenario starts in a fresh
// $WORK (the workspace) with CRYSTAL_HOME=$WORK/home, the plugin directory
// as $PLUGIN and as a development plugin of every crystal-star command
// (EnvDev), plugin timers on a manual clock (EnvClock) and the commands of
// Commands. A plugin that does not activate fails before its scenarios,
// with its diagnostics. It returns 0 when every scenario passed, else 1.
func RunScenarios(opts RunOptions) int {
	if len(opts.Dirs) == 0 {
		opts.Dirs = []string{"."}
	}
	bin, cleanup, err := binDir(opts.Executable)
	if err != nil {
		fmt.Fprintf(opts.Out, "FAIL %v\n", err)
		return 1
	}
	defer cleanup()
	r := &runner{opts: opts, bin: bin}
	for _, d := range opts.Dirs {
		r.dir(d)
	}
	if r.ran == 0 && r.failed == 0 && opts.Run != nil {
		fmt.Fprintf(opts.Out, "FAIL no scenario matches -run %q\n", opts.Run)
		return 1
	}
	fmt.Fprintf(opts.Out, "%d passed, %d failed\n", r.ran-r.failed, r.failed)
	if r.failed > 0 {
		return 1
	}
	return 0
}

type runner struct {
	opts        RunOptions
	bin         string
	ran, failed int
}

// dir runs one directory: a plugin, or a directory of plugins.
func (r *runner) dir(d string) {
	if _, err := os.Stat(filepath.Join(d, "plugin.toml")); err == nil {
		r.plugin(d)
		return
	}
	entries, err := os.ReadDir(d)
	if err != nil {
		r.fail(d, err.Error())
		return
	}
	found := false
	for _, e := range entries {
		sub := filepath.Join(d, e.Name())
		if _, err := os.Stat(filepath.Join(sub, "plugin.toml")); e.IsDir() && err == nil {
			found = true
			r.plugin(sub)
		}
	}
	if !found {
		r.fail(d, "not a plugin directory (no plugin.toml) and holds no plugin directory")
	}
}

func (r *runner) fail(what, msg string) {
	r.ran++
	r.failed++
	fmt.Fprintf(r.opts.Out, "FAIL %s\n    %s\n", what, strings.ReplaceAll(msg, "\n", "\n    "))
}

// plugin runs the scenarios of one plugin directory.
func (r *runner) plugin(dir string) {
	files, _ := filepath.Glob(filepath.Join(dir, "testdata", "*.txtar"))
	if len(files) == 0 {
		r.fail(dir, fmt.Sprintf("no scenarios: %s holds no *.txtar; a plugin's tests live there (crystal-star new writes one)",
			filepath.Join(dir, "testdata")))
		return
	}
	var selected []string
	for _, f := range files {
		if r.opts.Run == nil || r.opts.Run.MatchString(scenarioName(f)) {
			selected = append(selected, f)
		}
	}
	if len(selected) == 0 {
		return
	}
	if msg := activationProblem(dir); msg != "" {
		r.fail(dir, msg)
		return
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		r.fail(dir, err.Error())
		return
	}
	top := &scenarioT{r: r, files: map[string]string{}}
	for _, f := range selected {
		top.files[scenarioName(f)] = f
	}
	top.guard(func() {
		testscript.RunT(top, testscript.Params{
			Files:         selected,
			Setup:         r.setup(abs),
			Cmds:          Commands(),
			UpdateScripts: r.opts.Update,
			// A hung command is stopped rather than hanging CI.
			Deadline:           time.Now().Add(ScenarioTimeout),
			RequireUniqueNames: true,
		})
	})
	if top.failed {
		r.fail(dir, top.log.String())
	}
}

func scenarioName(file string) string {
	return strings.TrimSuffix(filepath.Base(file), ".txtar")
}

// setup prepares one scenario's environment.
func (r *runner) setup(plugin string) func(*testscript.Env) error {
	return func(env *testscript.Env) error {
		home := filepath.Join(env.WorkDir, "home")
		if err := os.MkdirAll(home, 0o755); err != nil {
			return err
		}
		env.Setenv("CRYSTAL_HOME", home)
		env.Setenv("PLUGIN", plugin)
		env.Setenv(EnvDev, plugin)
		env.Setenv(EnvClock, "manual")
		env.Setenv("PATH", r.bin+string(os.PathListSeparator)+env.Getenv("PATH"))
		return nil
	}
}

// activationProblem starts a host over the plugin alone, in a fresh home
// and workspace, and describes why it is not active ("" when it is).
func activationProblem(dir string) string {
	tmp, err := os.MkdirTemp("", "crystal-star-test-")
	if err != nil {
		return err.Error()
	}
	defer os.RemoveAll(tmp)
	h, err := starhost.New(starhost.Options{Home: filepath.Join(tmp, "home"), Workspace: tmp, Dev: []string{dir},
		Clock: starhost.NewManualClock()})
	if err != nil {
		return err.Error()
	}
	ctx := context.Background()
	defer h.Close(ctx)
	if err := h.Start(ctx); err != nil {
		return err.Error()
	}
	ps := h.Plugins()
	if msg := inactive(ps); msg != "" {
		return msg
	}
	return leftOut(ps)
}

// leftOut describes every active development plugin with an error note:
// the host left something of it out (a tool whose schema is invalid, ...),
// and its scenarios would fail later for a reason buried in stderr ("" when
// there is none).
func leftOut(ps []starhost.PluginInfo) string {
	var b strings.Builder
	for _, p := range ps {
		if p.Source != "dev" || p.State != "active" {
			continue
		}
		head := false
		for _, d := range p.Diagnostics {
			if d.Severity != starhost.SeverityError {
				continue
			}
			if !head {
				fmt.Fprintf(&b, "plugin %s activated, but the host left part of it out:\n", p.ID)
				head = true
			}
			fmt.Fprintf(&b, "  %s\n", d)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// inactive describes every development plugin that is not active, with its
// blockers and diagnostics ("" when all are).
func inactive(ps []starhost.PluginInfo) string {
	var b strings.Builder
	for _, p := range ps {
		if p.Source != "dev" || p.State == "active" {
			continue
		}
		fmt.Fprintf(&b, "plugin %s did not activate: it is %s\n", p.ID, p.State)
		for _, bl := range p.Blockers {
			fmt.Fprintf(&b, "  blocked: %s [%s]; %s\n", bl.Message, bl.Code, bl.Remedy)
		}
		for _, d := range p.Diagnostics {
			fmt.Fprintf(&b, "  %s\n", d)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// binDir makes a temporary directory holding exe as "crystal-star", for
// $PATH.
func binDir(exe string) (string, func(), error) {
	tmp, err := os.MkdirTemp("", "crystal-star-bin-")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { os.RemoveAll(tmp) }
	name := filepath.Join(tmp, "crystal-star")
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if err := os.Symlink(exe, name); err != nil {
		data, rerr := os.ReadFile(exe)
		if rerr != nil {
			cleanup()
			return "", nil, rerr
		}
		if err := os.WriteFile(name, data, 0o755); err != nil {
			cleanup()
			return "", nil, err
		}
	}
	return tmp, cleanup, nil
}

// scenarioT is the testscript.T of RunScenarios: the top level collects
// fatal errors, and each Run is one scenario, reported on one line.
type scenarioT struct {
	r       *runner
	files   map[string]string // scenario name → file, at the top level
	log     strings.Builder
	failed  bool
	skipped bool
}

// stopScenario unwinds a scenario's goroutine, as runtime.Goexit does for
// a *testing.T.
type stopScenario struct{}

func (t *scenarioT) Skip(args ...any)  { t.Log(args...); t.skipped = true; panic(stopScenario{}) }
func (t *scenarioT) Fatal(args ...any) { t.Log(args...); t.FailNow() }
func (t *scenarioT) FailNow()          { t.failed = true; panic(stopScenario{}) }
func (t *scenarioT) Parallel()         {}
func (t *scenarioT) Verbose() bool     { return t.r.opts.Verbose }
func (t *scenarioT) Log(args ...any) {
	s := fmt.Sprint(args...)
	t.log.WriteString(s)
	if !strings.HasSuffix(s, "\n") {
		t.log.WriteByte('\n')
	}
}

// guard runs f, turning a stop into a return and any other panic into a
// failure with its message (a script never shows a Go stack trace).
func (t *scenarioT) guard(f func()) {
	defer func() {
		if v := recover(); v != nil {
			if _, ok := v.(stopScenario); !ok {
				t.failed = true
				t.Log(fmt.Sprintf("internal error: %v", v))
			}
		}
	}()
	f()
}

// Run runs one scenario and prints its line: ok or FAIL, the file and the
// time; a failure (or -v) adds the transcript, the failing command's
// file:line first.
func (t *scenarioT) Run(name string, f func(testscript.T)) {
	sub := &scenarioT{r: t.r}
	start := time.Now()
	sub.guard(func() { f(sub) })
	elapsed := time.Since(start).Seconds()
	file := t.files[name]
	if file == "" {
		file = name
	}
	status := "ok  "
	switch {
	case sub.failed:
		status = "FAIL"
		t.r.failed++
	case sub.skipped:
		status = "skip"
	}
	t.r.ran++
	fmt.Fprintf(t.r.opts.Out, "%s %s (%.2fs)\n", status, file, elapsed)
	if sub.failed || t.r.opts.Verbose {
		printTranscript(t.r.opts.Out, sub.log.String())
	} else if m := updatedLine.FindString(sub.log.String()); m != "" {
		fmt.Fprintf(t.r.opts.Out, "    %s\n", m) // -update rewrote the archive
	}
}

var (
	failLine    = regexp.MustCompile(`(?m)^FAIL: (.*)$`)
	updatedLine = regexp.MustCompile(`(?m)^\S+\.txtar updated$`)
)

// printTranscript prints a scenario's log indented, its FAIL lines (the
// failing command's file:line and message) first.
func printTranscript(w io.Writer, log string) {
	for _, m := range failLine.FindAllStringSubmatch(log, -1) {
		fmt.Fprintf(w, "    %s\n", m[1])
	}
	log = strings.TrimRight(failLine.ReplaceAllString(log, ""), "\n")
	for _, line := range strings.Split(log, "\n") {
		if line != "" {
			fmt.Fprintf(w, "    %s\n", line)
		}
	}
}
