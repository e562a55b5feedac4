package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/crystal-star/crystal-star/starhost/remote"
)

// scriptExecutors are the executors scenarios started, by script and name.
var scriptExecutors sync.Map // *testscript.TestScript + name -> *exec.Cmd

type executorKey struct {
	ts   *testscript.TestScript
	name string
}

// startScriptExecutor starts `crystal-star --home HOME executor --http
// 127.0.0.1:0` as a process of its own and returns its base URL; its
// stderr after the first line goes to $WORK/NAME.stderr.
func startScriptExecutor(ts *testscript.TestScript, name, home string, global ...string) string {
	cmd := scriptCommand(ts, append(append([]string{"--home", ts.MkAbs(home)}, global...), "executor", "--http", "127.0.0.1:0"))
	cmd.Env = append(cmd.Env, executorTokenEnv+"="+ts.Getenv(executorTokenEnv))
	stderr, err := cmd.StderrPipe()
	ts.Check(err)
	ts.Check(cmd.Start())
	lines := bufio.NewReader(stderr)
	first, _ := lines.ReadString('\n')
	url, ok := strings.CutPrefix(strings.TrimSpace(first), "executor: serving on ")
	if !ok {
		_ = cmd.Process.Kill()
		ts.Fatalf("executor %s printed %q, not its address", name, first)
	}
	url, _, _ = strings.Cut(url, " ")
	log, err := os.Create(ts.MkAbs(name + ".stderr"))
	ts.Check(err)
	done := make(chan struct{})
	go func() { _, _ = io.Copy(log, lines); log.Close(); close(done) }()
	scriptExecutors.Store(executorKey{ts, name}, cmd)
	ts.Defer(func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); <-done })
	return url
}

// cmdExecutor drives executor processes from a scenario:
//
//	executor start NAME HOME [GLOBAL-FLAGS...]
//	                           start one on a free loopback port; $NAME_URL is its URL
//	executor stop NAME         SIGTERM; it must exit 0 (stderr in $WORK/NAME.stderr)
//	executor kill NAME         SIGKILL
//	executor put NAME FILE     upload an archive as FILE's base name; prints "STATUS CODE"
//	executor get NAME PATH     GET PATH; prints "STATUS" and the body
func cmdExecutor(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: executor start|stop|kill|put|get NAME ...")
	}
	verb, name := args[0], args[1]
	proc := func() *exec.Cmd {
		v, ok := scriptExecutors.Load(executorKey{ts, name})
		if !ok {
			ts.Fatalf("no executor %s", name)
		}
		return v.(*exec.Cmd)
	}
	switch verb {
	case "start":
		if len(args) < 3 {
			ts.Fatalf("usage: executor start NAME HOME [GLOBAL-FLAGS...]")
		}
		ts.Setenv(strings.ToUpper(name)+"_URL", startScriptExecutor(ts, name, args[2], args[3:]...))
	case "stop", "kill":
		cmd := proc()
		sig := syscall.SIGTERM
		if verb == "kill" {
			sig = syscall.SIGKILL
		}
		ts.Check(cmd.Process.Signal(sig))
		err := cmd.Wait()
		if verb == "stop" && (err != nil) != neg {
			ts.Fatalf("executor %s exited: %v", name, err)
		}
		scriptExecutors.Delete(executorKey{ts, name})
	case "put", "get":
		if len(args) != 3 {
			ts.Fatalf("usage: executor %s NAME FILE|PATH", verb)
		}
		base := ts.Getenv(strings.ToUpper(name) + "_URL")
		var req *http.Request
		var err error
		if verb == "put" {
			data, rerr := os.ReadFile(ts.MkAbs(args[2]))
			ts.Check(rerr)
			req, err = http.NewRequest(http.MethodPut, base+remote.BundlesPath+filepath.Base(args[2]), bytes.NewReader(data))
		} else {
			req, err = http.NewRequest(http.MethodGet, base+args[2], nil)
		}
		ts.Check(err)
		if tok := ts.Getenv(executorTokenEnv); tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		client := &http.Client{Timeout: 30 * time.Second}
		resp, err := client.Do(req)
		ts.Check(err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Fprintf(ts.Stdout(), "%d\n%s", resp.StatusCode, body)
	default:
		ts.Fatalf("unknown executor verb %q", verb)
	}
}

// cmdEnvsubst replaces $NAME and ${NAME} in each file, relative to $WORK,
// with the script's environment: a config.toml names an executor's URL.
func cmdEnvsubst(ts *testscript.TestScript, neg bool, args []string) {
	for _, f := range args {
		data, err := os.ReadFile(ts.MkAbs(f))
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(f), []byte(os.Expand(string(data), ts.Getenv)), 0o644))
	}
}

// cmdPacked sets $VAR to the archive file name `crystal-star pack DIR`
// writes: packed VAR DIR.
func cmdPacked(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: packed VAR DIR")
	}
	a, err := remote.Pack(ts.MkAbs(args[1]))
	ts.Check(err)
	ts.Setenv(args[0], a.FileName())
}
