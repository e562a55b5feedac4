package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
		printReasons(e.stdout, p)
		for _, d := range p.Diagnostics {
			fmt.Fprintf(e.stdout, "  %s\n", d)
			for _, line := range strings.Split(strings.TrimSpace(d.Detail), "\n") {
				if line != "" {
					fmt.Fprintf(e.stdout, "    %s\n", line)
				}
			}
		}
	}
	fmt.Fprintln(e.stdout, reclaimLine(h))
	return nil
}

// printReasons prints why a plugin does not run: its stop reason (MC5)
// and its blockers, one indented line each.
func printReasons(w io.Writer, p starhost.PluginInfo) {
	if r := p.StopReason; r != nil {
		fmt.Fprintf(w, "  stopped: %s [%s]; %s\n", r.Message, r.Code, r.Remedy)
	}
	for _, b := range p.Blockers {
		fmt.Fprintf(w, "  blocked: %s [%s]; %s\n", b.Message, b.Code, b.Remedy)
	}
}

// reclaimLine is the operator's one-line view of the reclaim facts (DC27,
// MC9), printed after the plugin list by `plugins` and dev `/plugins`.
func reclaimLine(h *starhost.Host) string {
	s := h.Stats()
	advice := "no restart needed"
	if s.RestartRecommended {
		advice = "restart recommended"
	}
	return fmt.Sprintf("reclaim: %d reclaiming, leaked_generations %d, %s", s.Reclaiming, s.LeakedGenerations, advice)
}

// pluginJSON is the stable shape of `plugins --json` (docs/cli.md).
type pluginJSON struct {
	ID          string        `json:"id"`
	Directory   string        `json:"directory"`
	Source      string        `json:"source"`
	DisplayName string        `json:"display_name"`
	Version     string        `json:"version"`
	State       string        `json:"state"`
	Generation  string        `json:"generation"`
	Fingerprint string        `json:"fingerprint"`
	Trust       string        `json:"trust"`
	Blockers    []blockerJSON `json:"blockers"`
	// StopReason is why a stopped plugin is off (MC5), or null.
	StopReason  *blockerJSON     `json:"stop_reason"`
	Diagnostics []diagnosticJSON `json:"diagnostics"`
	// MC9: the reclaim facts, visible to the operator (DC27).
	LeakedGenerations  int  `json:"leaked_generations"`
	RestartRecommended bool `json:"restart_recommended"`
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
		Trust: p.Trust, Blockers: []blockerJSON{}, Diagnostics: []diagnosticJSON{},
		LeakedGenerations: p.LeakedGenerations, RestartRecommended: p.RestartRecommended}
	for _, b := range p.Blockers {
		out.Blockers = append(out.Blockers, blockerJSON{Code: string(b.Code), Message: b.Message, Remedy: b.Remedy})
	}
	if r := p.StopReason; r != nil {
		out.StopReason = &blockerJSON{Code: string(r.Code), Message: r.Message, Remedy: r.Remedy}
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
	list := h.PlanTools(e.ctx, "", cat).List() // one tool planning (MC2)
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.Name, owner, t.Catalogs, t.Description)
	}
	return tw.Flush()
}

// callJSON is the stable shape of `call --json`.
type callJSON struct {
	OK    bool               `json:"ok"`
	Text  string             `json:"text"`
	Data  json.RawMessage    `json:"data"`
	Parts []contrib.Part     `json:"parts,omitempty"` // a multimodal tool's content (MC1)
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
	res := h.PlanTools(e.ctx, "", contrib.PlanAndWork).Invoke(e.ctx, f.args[0], raw)
	if f.has("json") {
		if err := e.printJSON(callJSON{OK: res.OK(), Text: res.Text, Data: nullIfEmpty(res.Data), Parts: res.Parts, Error: res.Err}); err != nil {
			return err
		}
	} else if res.OK() {
		if len(res.Parts) > 0 {
			for _, line := range partLines(res.Parts) {
				fmt.Fprintln(e.stdout, line)
			}
		} else if res.Data != nil {
			fmt.Fprintln(e.stdout, string(res.Data))
		} else {
			fmt.Fprintln(e.stdout, res.Text)
		}
	} else {
		fmt.Fprintf(e.stderr, "%s: %s\n", res.Err.Code, res.Err.Message)
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
	fmt.Fprintln(e.stdout, text)
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
	fmt.Fprintln(e.stdout, h.Bind(e.ctx, f.args[0], site))
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
