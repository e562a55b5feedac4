package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/crystal-star/crystal-star/internal/layout"
	"github.com/crystal-star/crystal-star/starhost/executor"
	"github.com/crystal-star/crystal-star/starhost/mcpserve"
	"github.com/crystal-star/crystal-star/starhost/remote"
	"github.com/crystal-star/crystal-star/trust"
)

// executorTokenEnv names the environment variable holding the bearer token
// of `executor --http`; it is required when the address is not loopback.
const executorTokenEnv = "CRYSTAL_EXECUTOR_TOKEN"

var packCmd = command{name: "pack", args: "DIR",
	summary: "write a plugin as one archive named by its trust fingerprint (remote tools)",
	flags:   []flagSpec{{"out", "DIR", "where to write the archive (default the current directory)"}, {name: "json", help: "print JSON (docs/cli.md)"}},
	example: "pack plugins/review", run: runPack}

// packInfo is what pack prints with --json.
type packInfo struct {
	Plugin      string `json:"plugin"`
	Version     string `json:"version"`
	Fingerprint string `json:"fingerprint"`
	Path        string `json:"path"`
	Bytes       int    `json:"bytes"`
}

func runPack(e *env, args []string) error {
	f, err := e.flags(args)
	if err != nil {
		return err
	}
	if len(f.args) != 1 {
		return usagef("usage: crystal-star pack DIR")
	}
	a, err := remote.Pack(f.args[0])
	if err != nil {
		return fmt.Errorf("pack %s: %w", f.args[0], err)
	}
	out := f.set["out"]
	if out == "" {
		out = "."
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	path := filepath.Join(out, a.FileName())
	if err := os.WriteFile(path, a.Data, 0o644); err != nil {
		return err
	}
	info := packInfo{Plugin: a.Plugin, Version: a.Version, Fingerprint: a.Fingerprint, Path: path, Bytes: len(a.Data)}
	if f.has("json") {
		return e.printJSON(info)
	}
	fmt.Fprintf(e.stdout, "%s %s %s\n%s\n", a.Plugin, a.Version, a.Fingerprint, path)
	return nil
}

// grantArchive is `trust grant --archive FILE`: it grants the plugin and
// fingerprint of a packed bundle, whose bytes must hash to its name, in
// this home's trust file — how an executor's operator authorises a bundle.
func grantArchive(e *env, file string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	a, err := remote.Open(filepath.Base(file), data)
	if err != nil {
		return fmt.Errorf("trust grant --archive %s: %w", file, err)
	}
	store := trust.NewStore(layout.Paths{Home: e.home()}.Trust())
	if err := store.Grant(a.Plugin, a.Fingerprint, time.Now()); err != nil && !errors.Is(err, trust.ErrNoChange) {
		return err
	}
	fmt.Fprintf(e.stdout, "%s %s %s: granted\n", a.Plugin, a.Version, a.Fingerprint)
	return nil
}

var executorCmd = command{name: "executor",
	summary: "serve remote tools of granted bundles over MCP Streamable HTTP (docs/remote.md)",
	flags: []flagSpec{{"http", "ADDR", "listen on ADDR (default 127.0.0.1:7311; " + executorTokenEnv + " required off loopback)"},
		{"drain-timeout", "DUR", "on SIGTERM, how long calls in flight may finish (default 30s)"}},
	example: "--home executor-home executor --http 127.0.0.1:0", run: runExecutor}

// runExecutor serves until SIGINT or SIGTERM, then stops admitting calls,
// lets those in flight finish up to --drain-timeout and exits 0.
func runExecutor(e *env, args []string) error {
	f, err := e.flags(args)
	if err != nil {
		return err
	}
	if len(f.args) > 0 {
		return usagef("executor takes no arguments")
	}
	addr := f.set["http"]
	if addr == "" {
		addr = "127.0.0.1:7311"
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return usagef("executor --http %s: want HOST:PORT or :PORT (%v)", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	addr = net.JoinHostPort(host, port)
	token := os.Getenv(executorTokenEnv)
	if !mcpserve.IsLoopback(host) && token == "" {
		return usagef("executor --http %s is not loopback: set $%s to the bearer token hosts must send", addr, executorTokenEnv)
	}
	drain := 30 * time.Second
	if v, ok := f.set["drain-timeout"]; ok {
		if drain, err = time.ParseDuration(v); err != nil || drain < 0 {
			return usagef("executor --drain-timeout %s: want a duration such as 30s", v)
		}
	}
	home := e.home()
	x, err := executor.New(executor.Options{Home: home, Workspace: e.global.workspace, Token: token, Notes: e.note})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: x.Handler(), ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e.stderrf("executor: serving on http://%s (home %s)\n", ln.Addr(), home)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	e.stderrf("executor: draining (up to %s)\n", drain)
	dctx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	drainErr := x.Shutdown(dctx)
	sctx, cancel2 := context.WithTimeout(context.Background(), time.Second)
	defer cancel2()
	_ = srv.Shutdown(sctx)
	if drainErr != nil {
		e.stderrf("executor: calls still running after %s were stopped\n", drain)
	}
	e.stderrf("executor: stopped\n")
	return nil
}
