package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/toolwire"
)

var pluginsCmd = command{name: "plugins", summary: "every discovered plugin: state, generation, trust, blockers, diagnostics",
	flags: []flagSpec{{name: "json", help: "print JSON (docs/cli.md)"}}, example: "plugins --dev plugins", run: runPlugins}

func runPlugins(e *env, args []string) error {
	f, err := e.flags(args)
	if err != nil {
		return err
	}
	if len(f.args) > 0 {
		return usagef("plugins takes no arguments")
	}
	e.deferNotes = true // the listing shows every plugin's reasons and diagnostics
	h, err := e.start()
	if err != nil {
		return err
	}
	ps := h.Plugins()
	for _, p := range ps {
		e.shownPlugin(p, true)
	}
	if f.has("json") {
		out := make([]pluginJSON, len(ps))
		for i, p := range ps {
			out[i] = toPluginJSON(p)
			out[i].Isolation = h.Isolation(p.ID)
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
		fmt.Fprintf(e.stdout, "%s %s %s (%s, %s) %s\n", p.ID, orDash(p.Version), p.State, p.Source, gen, p.Directory)
		if iso := h.Isolation(p.ID); iso != starhost.IsolationInProcess {
			fmt.Fprintf(e.stdout, "  isolation: %s\n", iso) // in_process, the default, goes unsaid
		}
		printReasons(e.stdout, p)
		for _, d := range byPosition(p.Diagnostics) {
			e.printDiag(e.stdout, "  ", d)
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

// byPosition returns ds sorted as check sorts its lines: by file, line,
// column and code (a plugin's diagnostics come from several stages).
func byPosition(ds []starhost.Note) []starhost.Note {
	return slices.SortedStableFunc(slices.Values(ds), func(a, b starhost.Note) int {
		return cmp.Or(cmp.Compare(a.Pos.File, b.Pos.File), cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Col, b.Pos.Col), cmp.Compare(a.Code, b.Code))
	})
}

// printReasons prints why a plugin does not run: its stop reason (MC5)
// and its blockers, one indented line each.
func printReasons(w io.Writer, p starhost.PluginInfo) {
	if r := p.StopReason; r != nil {
		fmt.Fprintf(w, "  stopped: %s [%s]; %s\n", r.Message, r.Code, remedy(p.ID, r.Action, r.Remedy))
	}
	for _, b := range p.Blockers {
		fmt.Fprintf(w, "  blocked: %s [%s]; %s\n", b.Message, b.Code, remedy(p.ID, b.Action, b.Remedy))
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
	ID          string `json:"id"`
	Directory   string `json:"directory"`
	Source      string `json:"source"`
	DisplayName string `json:"display_name"`
	Version     string `json:"version"`
	State       string `json:"state"`
	Generation  string `json:"generation"`
	Fingerprint string `json:"fingerprint"`
	Trust       string `json:"trust"`
	// Isolation is where the plugin runs: in_process or process
	// (docs/isolation.md); "" where the host is not at hand.
	Isolation string        `json:"isolation,omitempty"`
	Blockers  []blockerJSON `json:"blockers"`
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
		out.Blockers = append(out.Blockers, blockerJSON{Code: string(b.Code), Message: b.Message, Remedy: remedy(p.ID, b.Action, b.Remedy)})
	}
	if r := p.StopReason; r != nil {
		out.StopReason = &blockerJSON{Code: string(r.Code), Message: r.Message, Remedy: remedy(p.ID, r.Action, r.Remedy)}
	}
	for _, d := range p.Diagnostics {
		out.Diagnostics = append(out.Diagnostics, diagnosticJSON{Code: string(d.Code), Severity: string(d.Severity),
			Message: d.Message, File: d.Pos.File, Line: d.Pos.Line, Col: d.Pos.Col})
	}
	return out
}

var toolsCmd = command{name: "tools", summary: "the tool catalog, in order",
	flags:   []flagSpec{{name: "json", help: "print JSON (docs/cli.md)"}, {"catalog", "plan|work", "only the tools of one catalog"}},
	example: "tools --dev plugins --catalog plan", run: runTools}

func runTools(e *env, args []string) error {
	f, err := e.flags(args)
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
	if _, err := e.start(); err != nil {
		return err
	}
	list := e.sess().Thread("").Tools(e.ctx, cat).List() // one tool planning (MC2)
	if f.has("json") {
		if list == nil {
			list = []starhost.ToolInfo{}
		}
		return e.printJSON(list)
	}
	tw := newTable(e.stdout)
	for _, t := range list {
		owner := toolOwner(t)
		if t.Plugin == "" {
			owner = "(" + owner + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.Name, owner, t.Catalogs, t.Description)
	}
	return tw.Flush()
}

// callJSON is the stable shape of `call --json`.
type callJSON struct {
	OK    bool                   `json:"ok"`
	Text  string                 `json:"text"`
	Data  json.RawMessage        `json:"data"`
	Parts []starhost.ContentPart `json:"parts,omitempty"` // a multimodal tool's content (MC1)
	Error *starhost.ToolError    `json:"error"`
}

var callCmd = command{name: "call", args: "TOOL [JSON]", summary: "invoke one tool; exit 1 on a tool error",
	flags: []flagSpec{{name: "json", help: "print JSON (docs/cli.md)"}}, example: `call --dev plugins/review review_summary '{"text": "looks good to me"}'`, run: runCall}

func runCall(e *env, args []string) error {
	f, err := e.flags(args)
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
	if _, err := e.start(); err != nil {
		return err
	}
	snap := e.sess().Thread("").Tools(e.ctx, starhost.PlanAndWork)
	res := snap.Invoke(e.ctx, f.args[0], raw)
	if f.has("json") {
		if err := e.printJSON(callJSON{OK: res.OK(), Text: res.Text, Data: nullIfEmpty(res.Data), Parts: res.Parts, Error: res.Error}); err != nil {
			return err
		}
	} else if res.OK() {
		if len(res.Parts) > 0 {
			for _, line := range partLines(res.Parts) {
				fmt.Fprintln(e.stdout, line)
			}
		} else {
			fmt.Fprintln(e.stdout, toolwire.ResultText(res))
		}
	} else {
		hint := ""
		if errors.Is(res.Err(), starhost.ErrUnknownTool) {
			var names []string
			for _, t := range snap.List() {
				names = append(names, t.Name)
			}
			hint = didYouMean(f.args[0], names, "")
		}
		fmt.Fprintf(e.stderr, "%s%s\n", toolwire.ResultText(res), hint)
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

var expandCmd = command{name: "expand", args: "/NAME [ARGS...]", summary: "the turn input a slash command produces",
	example: "expand --dev plugins/review /triage backend", run: runExpand}

func runExpand(e *env, args []string) error {
	f, err := e.flags(args)
	if err != nil {
		return err
	}
	if len(f.args) < 1 || !strings.HasPrefix(f.args[0], "/") {
		return usagef("usage: crystal-star expand /NAME [ARGS...]")
	}
	if _, err := e.start(); err != nil {
		return err
	}
	name := f.args[0]
	text, ok, err := e.sess().Expand(e.ctx, name, strings.Join(f.args[1:], " "))
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

var renderCmd = command{name: "render", args: "TEMPLATE", summary: "bind a template's {{placeholders}}",
	flags:   []flagSpec{{"site", "SITE", "prompt (default), attachment, review, compaction or image_description"}},
	example: "render 'Mode: {{mode}}'", run: runRender}

func runRender(e *env, args []string) error {
	f, err := e.flags(args)
	if err != nil {
		return err
	}
	if len(f.args) != 1 {
		return usagef("usage: crystal-star render TEMPLATE [--site SITE]")
	}
	site := starhost.SitePrompt
	if s, ok := f.set["site"]; ok {
		var err error
		if site, err = starhost.ParseSite(s); err != nil {
			return usagef("--site must be prompt, attachment, review, compaction or image_description")
		}
	}
	if _, err := e.start(); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, e.sess().Bind(e.ctx, f.args[0], site))
	return nil
}

// toolOwner is the plugin that contributes a tool, or "external" for the
// host's own: `tools` and the console's /tools show the same word.
func toolOwner(t starhost.ToolInfo) string {
	if t.Plugin == "" {
		return "external"
	}
	return t.Plugin
}

// catalogFlag reads --catalog plan|work; without it, both catalogs.
func catalogFlag(f *cmdFlags) (starhost.Catalog, error) {
	name, ok := f.set["catalog"]
	if !ok {
		return starhost.PlanAndWork, nil
	}
	c, err := contrib.ParseCatalog(name)
	if err != nil || c == contrib.PlanAndWork {
		return 0, usagef("--catalog must be plan or work")
	}
	return starhost.Catalog(c), nil
}
