package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/crystal-star/crystal-star/starhost/plugintest"
)

func TestMain(m *testing.M) {
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
			return nil
		},
		Cmds: scenarioCommands(),
	})
}

// scenarioCommands are the plugin test kit's commands, which plugin authors
// use too, plus the ones only the project's own scenarios need.
func scenarioCommands() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	cmds := plugintest.Commands()
	cmds["mcpsignal"] = cmdMCPSignal
	cmds["mcphttp"] = cmdMCPHTTP
	return cmds
}
