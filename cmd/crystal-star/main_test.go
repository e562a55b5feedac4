package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/crystal-star/crystal-star/internal/scalegen"
	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/plugintest"
)

func TestMain(m *testing.M) {
	starhost.ServeWorkerIfChild() // scenarios in process isolation re-execute this binary as the worker
	if os.Getenv(benchMain) != "" {
		os.Exit(Main()) // the crystal-star of BenchmarkMCPStdioCall
	}
	testscript.Main(m, map[string]func(){
		"crystal-star": func() { os.Exit(Main()) },
	})
}

// TestScripts runs every end-to-end scenario in testdata/script against the
// real crystal-star binary. Each scenario gets a fresh $WORK with
// CRYSTAL_HOME=$WORK/home; the repository's plugins/ is reachable as
// $PLUGINS. The helper commands are the ones plugin authors get from
// `crystal-star test` (plugintest.Commands).
func TestScripts(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join(root, "testdata", "script"),
		Setup: func(env *testscript.Env) error {
			env.Setenv("CRYSTAL_HOME", filepath.Join(env.WorkDir, "home"))
			env.Setenv("PLUGINS", filepath.Join(root, "plugins"))
			env.Setenv("HOST_VERSION", starhost.Version) // what `crystal-star version` prints
			// CRYSTAL_ISOLATION=process go test ./cmd/crystal-star runs every
			// scenario with its plugins in workers (docs/isolation.md).
			if v := os.Getenv("CRYSTAL_ISOLATION"); v != "" {
				env.Setenv("CRYSTAL_ISOLATION", v)
			}
			return nil
		},
		Cmds:          scenarioCommands(),
		Condition:     scenarioCondition,
		UpdateScripts: *updateContract, // -update also rewrites the files cmp compares against
	})
}

// scenarioCommands are the plugin test kit's commands, which plugin authors
// use too, plus the ones only the project's own scenarios need.
func scenarioCommands() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	cmds := plugintest.Commands()
	cmds["mcpsignal"] = cmdMCPSignal
	cmds["genplugins"] = cmdGenPlugins
	cmds["mcphttp"] = cmdMCPHTTP
	cmds["mcphttprun"] = cmdMCPHTTPRun
	cmds["executor"] = cmdExecutor
	cmds["envsubst"] = cmdEnvsubst
	cmds["packed"] = cmdPacked
	cmds["livemcp"] = cmdLiveMCP
	return cmds
}

// cmdGenPlugins runs `genplugins N DIR`: it writes N generated one-tool
// plugins (plugin i contributes the tool echo_i, id scale.p0000i) into DIR,
// relative to $WORK. Scenarios with many plugins generate them at run time.
func cmdGenPlugins(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: genplugins N DIR")
	}
	n, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("genplugins: %v", err)
	}
	ts.Check(scalegen.Write(ts.MkAbs(args[1]), n))
}

// scenarioCondition answers the conditions of the project's own scenarios:
// [race] holds when the test binary (which scenarios also run as a plugin
// worker) is built with the race detector, whose shadow memory does not fit
// a worker limit of a few MiB. [isolation:process] holds when
// $CRYSTAL_ISOLATION is process (CI's second run, every plugin in a
// worker): a scenario about the in-process guards themselves skips there.
func scenarioCondition(cond string) (bool, error) {
	switch cond {
	case "race":
		return raceEnabled, nil
	case "isolation:process":
		return os.Getenv("CRYSTAL_ISOLATION") == "process", nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}
