package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/crystal-star/crystal-star/starhost"
)

var statusCmd = command{name: "status", summary: "the operator's status line",
	flags: []flagSpec{{name: "json", help: "print JSON (docs/cli.md)"}}, example: "status --dev plugins", run: runStatus}

// cliStatusText returns the CLI's own built-in status fields.
func cliStatusText(sess *starhost.Session) func(string) string {
	return func(name string) string {
		if sess == nil {
			return ""
		}
		f := sess.Facts()
		s := sess.Model()
		if s == nil {
			s = &starhost.ModelFacts{}
		}
		switch name {
		case "model":
			if s.Model == "" {
				return ""
			}
			return s.Provider + "/" + s.Model
		case "thinking":
			return s.Thinking
		case "tier":
			return s.ServiceTier
		case "speed":
			return s.Speed
		case "mode":
			return f.Mode
		case "approval":
			return f.ApprovalMode
		case "cwd":
			wd, _ := os.Getwd()
			return filepath.Base(wd)
		}
		return ""
	}
}

// statusJSON is the stable shape of `status --json`.
type statusJSON struct {
	Line   string          `json:"line"`
	Fields []statusRowJSON `json:"fields"`
}

type statusRowJSON struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Plugin      string `json:"plugin"`
	Builtin     bool   `json:"builtin"`
	OnLine      bool   `json:"on_line"`
	Unavailable bool   `json:"unavailable"`
}

func runStatus(e *env, args []string) error {
	f, err := e.flags(args)
	if err != nil {
		return err
	}
	if len(f.args) > 0 {
		return usagef("status takes no arguments")
	}
	h, err := e.start()
	if err != nil {
		return err
	}
	if f.has("json") {
		out := statusJSON{Line: e.sess().StatusLine(), Fields: []statusRowJSON{}}
		for _, r := range h.StatusView() {
			out.Fields = append(out.Fields, statusRowJSON{Name: r.Name, Description: r.Description, Plugin: r.Plugin,
				Builtin: r.Builtin, OnLine: r.OnLine, Unavailable: r.Unavailable})
		}
		return e.printJSON(out)
	}
	fmt.Fprintln(e.stdout, e.sess().StatusLine())
	return nil
}
