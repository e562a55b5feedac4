// Command embedmin is the smallest embedder of starhost: it starts a host
// over one development plugin, invokes one tool and prints the result —
// starhost.New, Start, one Invoke and nothing else. Its binary size and
// `go list -deps` count are the bars of issue 26 point 1 (TestH26_1_*), set
// against internal/embedmin/raw, which runs the same plugin with
// go.starlark.net alone.
//
//	embedmin PLUGIN_DIR TOOL '{"text": "hi"}'
//
// With EMBEDMIN_GOROUTINES=1 it prints, before anything else, how many
// goroutines run when main starts: the package initializers of everything
// starhost links started them. EMBEDMIN_HOME names the host's home (a
// fresh temporary one by default); notes go to stderr.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/crystal-star/crystal-star/starhost"
)

func main() {
	if os.Getenv("EMBEDMIN_GOROUTINES") == "1" {
		fmt.Println("goroutines at main:", runtime.NumGoroutine())
	}
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: embedmin PLUGIN_DIR TOOL JSON")
		os.Exit(2)
	}
	tmp, err := os.MkdirTemp("", "embedmin-")
	check(err)
	defer os.RemoveAll(tmp)
	ctx := context.Background()
	home := os.Getenv("EMBEDMIN_HOME")
	if home == "" {
		home = filepath.Join(tmp, "home")
	}
	h, err := starhost.New(starhost.Options{Home: home, Workspace: filepath.Join(tmp, "ws"), Dev: []string{os.Args[1]},
		Notes: func(n starhost.Note) { fmt.Fprintln(os.Stderr, "note:", n) }})
	check(err)
	check(h.Start(ctx))
	s, err := h.NewSession(ctx, starhost.SessionOptions{})
	check(err)
	res := s.Thread("").Tools(ctx, starhost.Work).Invoke(ctx, os.Args[2], json.RawMessage(os.Args[3]))
	check(h.Close(ctx))
	if !res.OK() {
		fmt.Fprintf(os.Stderr, "%s: %s\n", res.Error.Code, res.Error.Message)
		os.Exit(1)
	}
	fmt.Println(res.Text)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
