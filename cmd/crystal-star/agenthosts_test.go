package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/crystal-star/crystal-star/starhost/models/modelfake"
)

// agentHostsEnv turns the real-binary scenarios on: they install Claude
// Code and Gemini CLI from npm (once, into a cache) and run them, which
// takes tens of seconds. .ci/run sets it for one run without -race.
const agentHostsEnv = "CRYSTAL_AGENTHOSTS"

// agentHostPackages are the npm packages of the agent hosts, by name.
var agentHostPackages = map[string]struct{ pkg, bin string }{
	"claude-code": {"@anthropic-ai/claude-code", "claude"},
	"gemini-cli":  {"@google/gemini-cli", "gemini"},
}

// TestAgentHostScripts runs the scenarios of testdata/agenthosts against
// the real Claude Code and Gemini CLI binaries (issue 27, point 7), with
// crystal-star on their PATH as their hook command and a local fake model
// (modelfake) in place of the provider. They skip, saying why, unless
// $CRYSTAL_AGENTHOSTS=1, and when npm or the registry is unavailable.
func TestAgentHostScripts(t *testing.T) {
	if os.Getenv(agentHostsEnv) != "1" {
		t.Skipf("the real Claude Code and Gemini CLI scenarios run with %s=1 (.ci/run sets it); they install both from npm into $HOME/.cache/crystal-star-agenthosts", agentHostsEnv)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	home := os.Getenv("HOME")
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join(root, "testdata", "agenthosts"),
		Setup: func(env *testscript.Env) error {
			env.Values[skipKey{}] = env.T().Skip
			env.Setenv("CRYSTAL_HOME", filepath.Join(env.WorkDir, "home"))
			env.Setenv("PLUGINS", filepath.Join(root, "plugins"))
			env.Setenv("AGENTHOSTS_CACHE", agentHostsCache(home))
			// The agent hosts keep their state under $WORK, never in the
			// user's home, and call no service but the fake model.
			env.Setenv("HOME", filepath.Join(env.WorkDir, "userhome"))
			env.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(env.WorkDir, "userhome", ".claude"))
			env.Setenv("ANTHROPIC_API_KEY", "sk-fake")
			env.Setenv("ENABLE_TOOL_SEARCH", "false")
			env.Setenv("DISABLE_TELEMETRY", "1")
			env.Setenv("DISABLE_AUTOUPDATER", "1")
			env.Setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
			env.Setenv("GEMINI_API_KEY", "fake-key")
			env.Setenv("GEMINI_CLI_TRUST_WORKSPACE", "true")
			// The live sockets (agenthosts/live) of this scenario only.
			rt := filepath.Join(env.WorkDir, "rt")
			env.Setenv("XDG_RUNTIME_DIR", rt)
			return os.Mkdir(rt, 0o700)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"agenthost":      cmdAgentHost,
			"fakeagentmodel": cmdFakeAgentModel,
		},
	})
}

// agentHostsCache is where the agent hosts are installed:
// $CRYSTAL_AGENTHOSTS_CACHE, else $HOME/.cache/crystal-star-agenthosts.
func agentHostsCache(home string) string {
	if d := os.Getenv("CRYSTAL_AGENTHOSTS_CACHE"); d != "" {
		return d
	}
	return filepath.Join(home, ".cache", "crystal-star-agenthosts")
}

// skipKey holds a scenario's Skip in its Values: a command cannot skip
// through the TestScript.
type skipKey struct{}

var installs sync.Map // agent host → *installResult

type installResult struct {
	once sync.Once
	bin  string
	err  error
}

// cmdAgentHost runs `agenthost claude-code|gemini-cli`: it makes sure the
// agent host is installed in the cache (npm install, once per test run;
// an installed one is reused) and sets $CLAUDE or $GEMINI to its binary.
// Without npm or the registry the scenario is skipped, saying so.
func cmdAgentHost(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: agenthost claude-code|gemini-cli")
	}
	p, ok := agentHostPackages[args[0]]
	if !ok {
		ts.Fatalf("agenthost: unknown agent host %q", args[0])
	}
	v, _ := installs.LoadOrStore(args[0], &installResult{})
	r := v.(*installResult)
	r.once.Do(func() { r.bin, r.err = installAgentHost(ts.Getenv("AGENTHOSTS_CACHE"), p.pkg, p.bin) })
	if r.err != nil {
		ts.Logf("%s is not available, so this scenario cannot run: %v", p.pkg, r.err)
		ts.Value(skipKey{}).(func(...any))("skipped: the agent host is not installed")
	}
	ts.Setenv(strings.ToUpper(p.bin), r.bin)
}

// installAgentHost installs pkg into dir with npm unless its binary is
// there already, and returns the binary's path.
func installAgentHost(dir, pkg, bin string) (string, error) {
	path := filepath.Join(dir, "node_modules", ".bin", bin)
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("npm is not installed")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	cmd := exec.Command(npm, "install", "--no-audit", "--no-fund", "--prefix", dir, pkg)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install %s: %v\n%s", pkg, err, out)
	}
	return path, nil
}

// cmdFakeAgentModel runs `fakeagentmodel CALLS.json`: it starts a fake
// model (modelfake) speaking Anthropic's streamed Messages API and
// Gemini's API, and sets $ANTHROPIC_BASE_URL and $GOOGLE_GEMINI_BASE_URL.
// CALLS.json lists the tool calls of the agent's turn, [{"name", "arguments"}]:
// a request that offers tools gets the next call — the number of tool
// results it carries says which — and "done" once they are used up; a
// request without tools (titles, summaries) gets "ok". Every request body
// is appended to $WORK/model.log, one per line.
func cmdFakeAgentModel(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: fakeagentmodel CALLS.json")
	}
	var calls []struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &calls))
	log, err := os.Create(filepath.Join(ts.Getenv("WORK"), "model.log"))
	ts.Check(err)
	var mu sync.Mutex
	srv := modelfake.Start()
	srv.Respond(func(r modelfake.Request) (modelfake.Reply, bool) {
		mu.Lock()
		fmt.Fprintf(log, "%s %s\n", r.Path, strings.ReplaceAll(string(r.Body), "\n", " "))
		mu.Unlock()
		body := string(r.Body)
		if !strings.Contains(body, `"tools"`) && !strings.Contains(body, `"functionDeclarations"`) {
			return modelfake.Reply{Text: "ok"}, true
		}
		n := strings.Count(body, `"tool_result"`) + strings.Count(body, `"functionResponse"`)
		if n >= len(calls) {
			return modelfake.Reply{Text: "done"}, true
		}
		c := calls[n]
		return modelfake.Reply{ToolCalls: []modelfake.ToolCall{{ID: fmt.Sprintf("toolu_%d", n+1), Name: c.Name, Arguments: string(c.Arguments)}}}, true
	})
	ts.Defer(func() { srv.Close(); log.Close() })
	ts.Setenv("ANTHROPIC_BASE_URL", srv.Endpoint("anthropic"))
	ts.Setenv("GOOGLE_GEMINI_BASE_URL", srv.Endpoint("gemini"))
}
