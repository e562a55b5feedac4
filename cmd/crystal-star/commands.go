package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/starhost"
)

func runPlugins(e *env, args []string) error {
	f, err := parseFlags(args, []string{"json"}, nil)
	if err != nil {
		return err
	}
	if len(f.args) > 0 {
		return usagef("plugins takes no arguments")
	}
	h, err := e.start()
	if err != nil {
		return err
	}
	ps := h.Plugins()
	if f.has("json") {
		out := make([]pluginJSON, len(ps))
		for i, p := range ps {
			out[i] = toPluginJSON(p)
		}
		return e.printJSON(out)
	}
	if len(ps) == 0 {
		fmt.Fprintln(e.stdout, "no plugins found")
		return nil
	}
	for _, p := range ps {
		gen := p.Generation
		if gen == "" {
			gen = "-"
		}
		fmt.Fprintf(e.stdout, "%s %s %s (%s, %s) %s\n", p.ID, p.Version, p.State, p.Source, gen, p.Directory)
		for _, b := range p.Blockers {
			fmt.Fprintf(e.stdout, "  blocked: %s [%s]; %s\n", safe(b.Message), b.Code, safe(b.Remedy))
		}
		for _, d := range p.Diagnostics {
			fmt.Fprintf(e.stdout, "  %s\n", safe(d.String()))
			for _, line := range strings.Split(strings.TrimSpace(d.Detail), "\n") {
				if line != "" {
					fmt.Fprintf(e.stdout, "    %s\n", safe(line))
				}
			}
		}
	}
	return nil
}

// pluginJSON is the stable shape of `plugins --json` (docs/cli.md).
type pluginJSON struct {
	ID          string           `json:"id"`
	Directory   string           `json:"directory"`
	Source      string           `json:"source"`
	DisplayName string           `json:"display_name"`
	Version     string           `json:"version"`
	State       string           `json:"state"`
	Generation  string           `json:"generation"`
	Fingerprint string           `json:"fingerprint"`
	Trust       string           `json:"trust"`
	Blockers    []blockerJSON    `json:"blockers"`
	Diagnostics []diagnosticJSON `json:"diagnostics"`
}

type blockerJSON struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Remedy  string `json:"remedy"`
}

type diagnosticJSON struct {
	Code     string `json:"code"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
}

func toPluginJSON(p starhost.PluginInfo) pluginJSON {
	out := pluginJSON{ID: p.ID, Directory: p.Directory, Source: string(p.Source), DisplayName: p.DisplayName,
		Version: p.Version, State: string(p.State), Generation: p.Generation, Fingerprint: p.Fingerprint,
		Trust: p.Trust, Blockers: []blockerJSON{}, Diagnostics: []diagnosticJSON{}}
	for _, b := range p.Blockers {
		out.Blockers = append(out.Blockers, blockerJSON{Code: string(b.Code), Message: b.Message, Remedy: b.Remedy})
	}
	for _, d := range p.Diagnostics {
		out.Diagnostics = append(out.Diagnostics, diagnosticJSON{Code: string(d.Code), Severity: string(d.Severity),
			Message: d.Message, File: d.Pos.File, Line: d.Pos.Line, Col: d.Pos.Col})
	}
	return out
}

func runTools(e *env, args []string) error {
	f, err := parseFlags(args, []string{"json"}, []string{"catalog"})
	if err != nil {
		return err
	}
	if len(f.args) > 0 {
		return usagef("tools takes no arguments")
	}
	cat, err := catalogFlag(f)
	if err != nil {
		return err
	}
	h, err := e.start()
	if err != nil {
		return err
	}
	list := h.Tools(cat).List()
	if f.has("json") {
		if list == nil {
			list = []contrib.ToolInfo{}
		}
		return e.printJSON(list)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	for _, t := range list {
		owner := t.Plugin
		if owner == "" {
			owner = "(external)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.Name, owner, t.Catalogs, safe(t.Description))
	}
	return tw.Flush()
}

// callJSON is the stable shape of `call --json`.
type callJSON struct {
	OK    bool               `json:"ok"`
	Text  string             `json:"text"`
	Data  json.RawMessage    `json:"data"`
	Error *contrib.ToolError `json:"error"`
}

func runCall(e *env, args []string) error {
	f, err := parseFlags(args, []string{"json"}, nil)
	if err != nil {
		return err
	}
	if len(f.args) < 1 || len(f.args) > 2 {
		return usagef("usage: crystal-star call TOOL [JSON]")
	}
	raw := json.RawMessage("{}")
	if len(f.args) == 2 {
		raw = json.RawMessage(f.args[1])
	}
	h, err := e.start()
	if err != nil {
		return err
	}
	res := h.Tools(contrib.PlanAndWork).Invoke(e.ctx, f.args[0], raw)
	if f.has("json") {
		if err := e.printJSON(callJSON{OK: res.OK(), Text: res.Text, Data: nullIfEmpty(res.Data), Error: res.Err}); err != nil {
			return err
		}
	} else if res.OK() {
		if res.Data != nil {
			fmt.Fprintln(e.stdout, safe(string(res.Data)))
		} else {
			fmt.Fprintln(e.stdout, safe(res.Text))
		}
	} else {
		fmt.Fprintf(e.stderr, "%s: %s\n", safe(res.Err.Code), safe(res.Err.Message))
	}
	if !res.OK() {
		return &exitError{code: 1}
	}
	return nil
}

func nullIfEmpty(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("null")
	}
	return b
}

func runExpand(e *env, args []string) error {
	f, err := parseFlags(args, nil, nil)
	if err != nil {
		return err
	}
	if len(f.args) < 1 || !strings.HasPrefix(f.args[0], "/") {
		return usagef("usage: crystal-star expand /NAME [ARGS...]")
	}
	h, err := e.start()
	if err != nil {
		return err
	}
	name := f.args[0]
	text, ok, err := h.Expand(e.ctx, name, strings.Join(f.args[1:], " "))
	switch {
	case errors.Is(err, starhost.ErrBuiltinCommand):
		return fmt.Errorf("%s is a built-in command of the host; plugins cannot expand it", name)
	case err != nil:
		return err
	case !ok:
		fmt.Fprintf(e.stderr, "%s produced no input: every command passed\n", name)
		return &exitError{code: 1}
	}
	fmt.Fprintln(e.stdout, safe(text))
	return nil
}

func runRender(e *env, args []string) error {
	f, err := parseFlags(args, nil, []string{"site"})
	if err != nil {
		return err
	}
	if len(f.args) != 1 {
		return usagef("usage: crystal-star render TEMPLATE [--site SITE]")
	}
	site := starhost.SitePrompt
	if s, ok := f.set["site"]; ok {
		if site, ok = contrib.ParseSite(s); !ok {
			return usagef("--site must be prompt, attachment, review, compaction or image_description")
		}
	}
	h, err := e.start()
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, safe(h.Bind(e.ctx, f.args[0], site)))
	return nil
}

// catalogFlag reads --catalog plan|work; without it, both catalogs.
func catalogFlag(f *cmdFlags) (contrib.Catalog, error) {
	name, ok := f.set["catalog"]
	if !ok {
		return contrib.PlanAndWork, nil
	}
	c, valid := contrib.ParseCatalog(name)
	if !valid || c == contrib.PlanAndWork {
		return 0, usagef("--catalog must be plan or work")
	}
	return c, nil
}
