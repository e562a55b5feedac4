package plugintest

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// Commands returns the scenario commands a plugin test needs, for
// testscript.Params.Cmds; `crystal-star test` and the project's own
// scenarios both use them (docs/testing.md):
//
//	fakemodel [PROTOCOL] [--replies FILE] [FILE...]  a local model server (FakeModel)
//	json FILE PATH REGEXP                 assert on JSON (LookupJSON); FILE may be stdout or stderr
//	waitmatch FILE REGEX                  wait until a line of FILE matches (a background dev --log)
//	exitcode N PROG [ARGS...]             run PROG and require exit status N
func Commands() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"exitcode":  cmdExitcode,
		"waitmatch": cmdWaitmatch,
		"fakemodel": cmdFakeModel,
		"json":      cmdJSON,
	}
}

// cmdExitcode runs `exitcode N PROG ARGS...` and fails unless PROG exits
// with status N. Its stdout and stderr are kept for later assertions.
func cmdExitcode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %v", err)
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exitcode: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// cmdWaitmatch runs `waitmatch FILE REGEX`: it polls FILE (relative to the
// current directory) for up to 10 seconds until a line matches REGEX.
// Scenarios use it to act only once a background dev console has reached a
// point (its --log).
func cmdWaitmatch(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitmatch FILE REGEX")
	}
	re, err := regexp.Compile("(?m)" + args[1])
	if err != nil {
		ts.Fatalf("waitmatch: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		data, _ := os.ReadFile(ts.MkAbs(args[0]))
		if re.Match(data) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waitmatch: no line of %s matched %q within 10s; it holds:\n%s", args[0], args[1], data)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// cmdFakeModel runs `fakemodel [PROTOCOL] [--replies FILE] [FILE...]`: it
// starts a FakeModel (all six built-in wire formats) for the rest of the
// scenario, sets $MODEL_URL to its base URL and $MODEL_ENDPOINT to the
// endpoint of PROTOCOL (default openai), and appends every request it gets
// to model-requests.log. With --replies, the replies in FILE (separated by
// lines holding only ---) answer the requests in order. Each FILE (a
// providers.json) has the texts MODEL_ENDPOINT and MODEL_URL replaced; with
// no FILE, it writes $CRYSTAL_HOME/providers.json and selects its model
// (FakeModel.WriteConfig).
func cmdFakeModel(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "usage: fakemodel [PROTOCOL] [--replies FILE] [FILE...]"
	if neg {
		ts.Fatalf(usage)
	}
	m := NewFakeModel()
	ts.Defer(m.Close)
	protocol := "openai"
	if len(args) > 0 && m.Endpoint(args[0]) != "" {
		protocol, args = args[0], args[1:]
	}
	if len(args) > 0 && strings.TrimLeft(args[0], "-") == "replies" {
		if len(args) < 2 {
			ts.Fatalf(usage)
		}
		replies := ParseReplies(ts.ReadFile(args[1]))
		if len(replies) == 0 {
			ts.Fatalf("fakemodel: %s holds no reply", args[1])
		}
		m.srv.Script(replies...)
		args = args[2:]
	}
	m.LogTo(ts.MkAbs("model-requests.log"))
	ts.Setenv("MODEL_URL", m.URL)
	ts.Setenv("MODEL_ENDPOINT", m.Endpoint(protocol))
	for _, name := range args {
		data, err := os.ReadFile(ts.MkAbs(name))
		ts.Check(err)
		text := strings.ReplaceAll(string(data), "MODEL_ENDPOINT", m.Endpoint(protocol))
		ts.Check(os.WriteFile(ts.MkAbs(name), []byte(strings.ReplaceAll(text, "MODEL_URL", m.URL)), 0o644))
	}
	if len(args) == 0 {
		home := ts.Getenv("CRYSTAL_HOME")
		if home == "" {
			ts.Fatalf("fakemodel: $CRYSTAL_HOME is not set; give the providers.json to rewrite")
		}
		ts.Check(m.WriteConfig(home))
	}
}

// cmdJSON runs `json FILE PATH REGEXP`: FILE (or stdout, stderr) holds one
// JSON value; the value at PATH (LookupJSON), rendered by RenderJSON, must
// match REGEXP. With !, the command fails only when the value exists and
// matches.
func cmdJSON(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: json FILE PATH REGEXP")
	}
	re, err := regexp.Compile(args[2])
	if err != nil {
		ts.Fatalf("json: %v", err)
	}
	text := ts.ReadFile(args[0])
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		ts.Fatalf("json: %s is not JSON (%v):\n%s", args[0], err, text)
	}
	got, err := LookupJSON(v, args[1])
	switch {
	case err != nil && neg:
		return
	case err != nil:
		ts.Fatalf("json: %s: %v", args[0], err)
	case re.MatchString(RenderJSON(got)) == neg:
		verb := "does not match"
		if neg {
			verb = "matches"
		}
		ts.Fatalf("json: %s %s is %s, which %s %q", args[0], args[1], RenderJSON(got), verb, args[2])
	}
}
