package agenthosts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/crystal-star/crystal-star/internal/safefile"
)

// SettingsFile is one JSON settings file of an agent host, read to be
// merged into: set-up adds its entries to Doc and writes the file only when
// the merged document differs from what was there, so a second run changes
// nothing. Keys it does not know are kept as they were.
type SettingsFile struct {
	Path string
	// Doc is the file's JSON object; empty when the file does not exist.
	Doc     map[string]any
	before  map[string]any
	old     []byte
	existed bool
}

// ReadSettings reads path for merging. A missing file is an empty
// document; a file that is not a JSON object is an error, so set-up never
// overwrites what it cannot read.
func ReadSettings(path string) (*SettingsFile, error) {
	f := &SettingsFile{Path: path, Doc: map[string]any{}}
	data, err := os.ReadFile(path)
	switch {
	case os.IsNotExist(err):
		return f, nil
	case err != nil:
		return nil, err
	}
	f.old, f.existed = data, true
	if len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, &f.Doc); err != nil {
			return nil, fmt.Errorf("%s is not a JSON object (%v): fix or move it, then run set-up again", path, err)
		}
		if f.Doc == nil {
			f.Doc = map[string]any{}
		}
	}
	_ = json.Unmarshal(f.Encode(), &f.before)
	return f, nil
}

// Changed reports whether the merged document differs from the file.
func (f *SettingsFile) Changed() bool {
	if !f.existed {
		return true
	}
	var now map[string]any
	_ = json.Unmarshal(f.Encode(), &now)
	return !reflect.DeepEqual(now, f.before)
}

// Encode is the merged document as written: indented JSON, keys sorted.
func (f *SettingsFile) Encode() []byte {
	b, _ := json.MarshalIndent(f.Doc, "", "  ")
	return append(b, '\n')
}

// Write writes the merged document when it changed: the previous file is
// kept as Path + ".bak" first, and the new one replaces it atomically. It
// returns the backup's path, "" when there was no file before.
func (f *SettingsFile) Write() (backup string, err error) {
	if !f.Changed() {
		return "", nil
	}
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o755); err != nil {
		return "", err
	}
	mode := os.FileMode(0o644)
	if f.existed {
		if st, err := os.Stat(f.Path); err == nil {
			mode = st.Mode().Perm()
		}
		backup = f.Path + ".bak"
		if err := os.WriteFile(backup, f.old, mode); err != nil {
			return "", err
		}
	}
	return backup, safefile.WriteFile(f.Path, f.Encode(), mode)
}

// Diff shows the change Write would make, line by line: "-" for a line of
// the file that goes, "+" for one that comes, " " for one that stays.
func (f *SettingsFile) Diff() string {
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", f.Path, f.Path)
	var a []string
	if f.existed {
		a = strings.Split(strings.TrimSuffix(string(f.old), "\n"), "\n")
	}
	c := strings.Split(strings.TrimSuffix(string(f.Encode()), "\n"), "\n")
	for _, l := range lineDiff(a, c) {
		b.WriteString(l + "\n")
	}
	return b.String()
}

// lineDiff is a longest-common-subsequence diff; settings files are small.
func lineDiff(a, b []string) []string {
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []string
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			out = append(out, " "+a[i])
			i, j = i+1, j+1
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			out = append(out, "+"+b[j])
			j++
		default:
			out = append(out, "-"+a[i])
			i++
		}
	}
	return out
}

// Object returns doc[key] as an object, adding an empty one when it is
// missing. A key holding something else is an error: set-up never
// replaces what the user wrote.
func Object(doc map[string]any, key string) (map[string]any, error) {
	switch v := doc[key].(type) {
	case map[string]any:
		return v, nil
	case nil:
		m := map[string]any{}
		doc[key] = m
		return m, nil
	default:
		return nil, fmt.Errorf("%q holds %T, not an object; set-up leaves it as it is", key, v)
	}
}

// AddHook adds a command hook for event to a hooks object of the shape
// both Claude Code and Gemini CLI read — {event: [{matcher, hooks:
// [{type: "command", command, …extra}]}]} — unless a hook of that event
// already runs command. matcher "" leaves the matcher out.
func AddHook(hooks map[string]any, event, matcher, command string, extra map[string]any) error {
	groups, ok := hooks[event].([]any)
	if !ok && hooks[event] != nil {
		return fmt.Errorf("hooks.%s holds %T, not a list; set-up leaves it as it is", event, hooks[event])
	}
	for _, g := range groups {
		gm, _ := g.(map[string]any)
		hs, _ := gm["hooks"].([]any)
		for _, h := range hs {
			if hm, _ := h.(map[string]any); hm != nil && hm["command"] == command {
				return nil
			}
		}
	}
	hook := map[string]any{"type": "command", "command": command}
	for k, v := range extra {
		hook[k] = v
	}
	group := map[string]any{"hooks": []any{hook}}
	if matcher != "" {
		group["matcher"] = matcher
	}
	hooks[event] = append(groups, group)
	return nil
}

// SetEntry sets obj[key] = v unless the user already has a different
// value there, which is kept; kept reports that.
func SetEntry(obj map[string]any, key string, v any) (kept bool) {
	if old, ok := obj[key]; ok {
		var norm any
		b, _ := json.Marshal(v)
		_ = json.Unmarshal(b, &norm)
		return !reflect.DeepEqual(old, norm)
	}
	obj[key] = v
	return false
}

// ShellLine joins args into one shell command line, quoting each argument
// that needs it: hook commands are run by a shell.
func ShellLine(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@+,") == "" {
			out[i] = a
		} else {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

// Launch is how an agent host starts crystal-star, the same for every
// host's set-up: the hooks (and a status line) run HookExe, the MCP server
// Exe, each with Args.
type Launch struct {
	// Exe and Args start crystal-star (Args are its global flags, such as
	// --dev DIR).
	Exe  string
	Args []string
	// HookExe runs the hooks and the status line: crystal-star-hook, the
	// fast forwarder, where it is installed; "" is Exe.
	HookExe string
}

// HookLine is the shell command line of a hook command: HookExe (else
// Exe), Args, then sub ("hook", "claude-code").
func (l Launch) HookLine(sub ...string) string {
	exe := l.HookExe
	if exe == "" {
		exe = l.Exe
	}
	return ShellLine(append(append([]string{exe}, l.Args...), sub...))
}

// MCPArgs are the MCP server's arguments: Args, then "mcp".
func (l Launch) MCPArgs() []string { return append(slices.Clone(l.Args), "mcp") }
