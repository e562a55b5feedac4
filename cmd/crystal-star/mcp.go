package main

import (
	"context"
	"sync"

	"github.com/crystal-star/crystal-star/starhost/mcpserve"
)

var mcpCmd = command{name: "mcp", summary: "serve the plugins' tools over MCP on stdin/stdout",
	flags:   []flagSpec{{"catalog", "plan|work", "only the tools of one catalog"}},
	example: "mcp --dev plugins", run: runMCP}

// runMCP starts the host, watches its plugin directories and serves the
// catalog over stdin/stdout (starhost/mcpserve) until the end of input, or
// SIGINT/SIGTERM: each is a clean shutdown with exit 0. The host is closed by
// run's e.close.
func runMCP(e *env, args []string) error {
	f, err := e.flags(args)
	if err != nil {
		return err
	}
	if len(f.args) > 0 {
		return usagef("mcp takes no arguments")
	}
	cat, err := catalogFlag(f)
	if err != nil {
		return err
	}
	h, err := e.start()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	watchDone := make(chan error, 1)
	watching := make(chan struct{})
	var once sync.Once
	go func() { watchDone <- h.WatchReady(ctx, func() { once.Do(func() { close(watching) }) }) }()
	select {
	case <-watching:
	case err := <-watchDone:
		return err
	}
	// The zero Version is starhost.Version, as `version` prints it.
	srv := mcpserve.New(h, mcpserve.Options{Catalog: cat})
	defer srv.Close()
	err = srv.ServeStdio(ctx, e.stdin, e.stdout)
	cancel()
	<-watchDone
	return err
}
