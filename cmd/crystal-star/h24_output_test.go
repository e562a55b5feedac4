package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/crystal-star/crystal-star/internal/testkit"
)

// hostile is every kind of character a terminal acts on: an OSC that sets
// the title, a CSI that clears the screen, BEL, DEL, C1 controls (NEL and
// an 8-bit CSI) and a bidi override. As Starlark and TOML spell it.
const (
	hostileStar = `\x1b]0;TITLE\x07\x1b[2J\u202e\u0085\u009b31m\x7f`
	hostileTOML = `\u001b]0;TITLE\u0007\u001b[2J\u202e\u0085\u009b31m\u007f`
	hostileRaw  = "\x1b]0;TITLE\x07\x1b[2J\u202e\u0085\u009b31m\x7f"
)

// hostilePlugin puts the hostile text in every string a plugin gives the
// host: manifest fields, tool, command, placeholder and status field
// descriptions, an argument hint, results, error() messages, print()
// notes, a command's output.
var hostilePlugin = testkit.Plugin{ID: "acme.evil",
	Manifest: "display_name = \"name " + hostileTOML + "\"\ndescription = \"about " + hostileTOML + "\"\n",
	Source: `H = "` + hostileStar + `"

def find(ctx, args):
    print("note " + H)
    return error("expected", "message " + H)

def cmd(ctx, inv):
    ctx.out.write("out " + H)
    return "input " + H

contribute(
    tools = [tool(name = "find", catalogs = "work", description = "tool " + H, run = find),
             tool(name = "ok", catalogs = "work", description = H, run = lambda ctx, args: "result " + H)],
    commands = [command(name = "evil", description = "command " + H, argument_hint = "<" + H + ">", run = cmd)],
    placeholders = [placeholder(name = "evil", resolve = lambda ctx: "value " + H)],
    status_fields = [status_field(name = "evil", description = "field " + H)],
)
`,
	Files: map[string]string{"testdata/evil.txtar": "exec crystal-star call ok\nstdout 'never printed'\n"},
}

// hostileDir is a plugin directory name a cloned repository could hold.
const hostileDir = "repo" + hostileRaw

// hostileArgs are the arguments each CLI command runs with in
// TestH24_4_NoRawControlBytesFromAnyCommand ($DEV, $WS: the dev root and the
// workspace plugin's directory). A command without an entry fails the
// test: a new command is covered when it is added.
var hostileArgs = map[string][][]string{
	"dev":      {{}},
	"check":    {{"$DEV"}, {"--json", "$DEV"}},
	"fmt":      {{"$DEV/" + hostileDir + "/plugin.star"}},
	"plugins":  {{}, {"--json"}},
	"tools":    {{}, {"--json"}},
	"call":     {{"find", "{}"}, {"ok", "{}"}, {"find", "{}", "--json"}},
	"expand":   {{"/evil", "x"}, {"/evil2"}},
	"render":   {{"{{evil}}"}},
	"status":   {{}},
	"trust":    {{"list"}, {"grant", "acme.ws"}},
	"install":  {{"$DEV/" + hostileDir}},
	"enable":   {{"acme.ws"}},
	"disable":  {{"acme.ws"}},
	"remove":   {{"acme.ws"}},
	"test":     {{"$DEV/" + hostileDir}},
	"new":      {{"acme.new", "--dir", "$TMP/new" + hostileRaw}},
	"commands": {{}, {"--json"}},
	"mcp":      {{}},
	"lsp":      {{}},
	"version":  {{}},
	"help":     {{}, {"call"}},
	// The agent-host commands read hostileStdin.
	"hook":       {{"claude-code"}, {"gemini-cli"}},
	"statusline": {{"claude-code"}},
	"setup":      {{"claude-code", "--dry-run"}, {"gemini-cli", "--dry-run"}},
	// pack prints the hostile plugin's id and path; executor (which serves
	// until a signal) is run with a hostile address it refuses at once.
	"pack":     {{"$DEV/" + hostileDir, "--out", "$TMP/pack"}, {"$DEV/" + hostileDir, "--out", "$TMP/pack", "--json"}},
	"executor": {{"--http", "host" + hostileRaw + ":1"}, {"--drain-timeout", hostileRaw}},
}

// hostileStdin is what the agent-host commands read: events naming the
// hostile plugin's tools, whose results and errors are hostile.
var hostileStdin = map[string]string{
	"hook":       `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"mcp__crystal-star__find","tool_input":{},"tool_response":[{"type":"text","text":"\u001b[2J\u202e"}]}`,
	"statusline": `{"session_id":"s\u001b[2J","model":{"display_name":"m\u202e"}}`,
}

// consoleInput is what the dev console is given: every listing and call.
const consoleInput = "/help\n/plugins\n/tools\n/call find {}\n/call ok {}\n/evil x\n/render {{evil}}\n/statusline\n/quit\n"

// TestH24_4_NoRawControlBytesFromAnyCommand runs every CLI command against
// a plugin whose every string is hostile, in a directory whose name is, beside
// an untrusted workspace plugin (a cloned repository) in such a
// directory, a markdown command and a skill with hostile descriptions: no
// control character, escape sequence, C1 or bidi control and no invalid
// UTF-8 reaches stdout or stderr, in text or --json output.
func TestH24_4_NoRawControlBytesFromAnyCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command")
	}
	tmp := t.TempDir()
	home, ws, dev := filepath.Join(tmp, "home"), filepath.Join(tmp, "ws"), filepath.Join(tmp, "dev")
	hostilePlugin.Write(t, filepath.Join(dev, hostileDir))
	testkit.Plugin{ID: "acme.ws", Manifest: "description = \"ws " + hostileTOML + "\"\n"}.Write(t, filepath.Join(ws, ".crystal", "plugins", hostileDir))
	testkit.WriteTree(t, ws, map[string]string{
		".crystal/commands/evil2.md":    "---\ndescription: md " + hostileRaw + "\nargument-hint: <" + hostileRaw + ">\n---\nBody " + hostileRaw + "\n",
		".crystal/skills/evil/SKILL.md": "---\nname: evil\ndescription: skill " + hostileRaw + "\n---\nBody\n",
	})
	for _, c := range commands {
		runs, ok := hostileArgs[c.name]
		if !ok {
			t.Errorf("command %s has no entry in hostileArgs: say how it runs against hostile input", c.name)
			continue
		}
		for _, args := range runs {
			args = append([]string{c.name}, args...)
			for i, a := range args {
				args[i] = strings.NewReplacer("$DEV", dev, "$TMP", tmp).Replace(a)
			}
			stdin := hostileStdin[c.name]
			if c.name == "dev" {
				stdin = consoleInput
			}
			var stdout, stderr bytes.Buffer
			run(append([]string{"--home", home, "--workspace", ws, "--dev", dev, "--color", "never"}, args...),
				strings.NewReader(stdin), &stdout, &stderr)
			for stream, out := range map[string][]byte{"stdout": stdout.Bytes(), "stderr": stderr.Bytes()} {
				if at, what := rawControl(out); at >= 0 {
					t.Errorf("crystal-star %s: %s has %s raw at byte %d: %q", strings.Join(shortArgs(args), " "), stream, what, at,
						out[max(0, at-60):min(len(out), at+20)])
				}
			}
			if c.name == "plugins" && len(args) == 1 && !strings.Contains(stdout.String(), `repo\x1b]0;TITLE\x07`) {
				t.Errorf("plugins does not show the hostile directory, escaped:\n%s", stdout.String())
			}
			if c.name == "commands" && len(args) == 1 && !strings.Contains(stdout.String(), `/evil <\x1b]0;TITLE\x07`) {
				t.Errorf("commands does not show the hostile argument hint, escaped:\n%s", stdout.String())
			}
		}
	}
}

// shortArgs returns args for a message: the temporary paths left out.
func shortArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = safe(filepath.Base(a))
	}
	return out
}

// rawControl returns the offset of the first character a terminal acts
// on, and what it is; -1 when there is none.
func rawControl(b []byte) (int, string) {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
				return i, "a control character"
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return i, "invalid UTF-8"
		case 0x80 <= r && r <= 0x9f:
			return i, "a C1 control"
		case 0x202a <= r && r <= 0x202e, 0x2066 <= r && r <= 0x2069, r == 0x2028, r == 0x2029:
			return i, "a bidi control or line separator"
		}
		i += size
	}
	return -1, ""
}

// TestH24_4_OutputOnlyThroughTheSanitiser keeps the sanitiser the only way
// out: the env's streams are outputs (output.go), the process's streams
// are named only by Main, and the unsanitised stream is taken only where a
// protocol (mcp, lsp) or readline's prompt drawing writes it. A printing
// path that bypasses the sanitiser has to break one of these.
func TestH24_4_OutputOnlyThroughTheSanitiser(t *testing.T) {
	want := reflect.TypeOf((*output)(nil))
	for _, f := range []string{"stdout", "stderr"} {
		if field, _ := reflect.TypeOf(env{}).FieldByName(f); field.Type != want {
			t.Errorf("env.%s is a %v; want *output", f, field.Type)
		}
	}
	unsanitisedIn := map[string]bool{"lsp.go": true, "mcp.go": true, "dev_input.go": true, "output.go": true}
	fset := token.NewFileSet()
	files, _ := filepath.Glob("*.go")
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		var fn string
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				fn = n.Name.Name
			case *ast.SelectorExpr:
				id, _ := n.X.(*ast.Ident)
				switch {
				case id != nil && id.Name == "os" && (n.Sel.Name == "Stdout" || n.Sel.Name == "Stderr") && fn != "Main":
					t.Errorf("%s: os.%s outside Main: print through the env's outputs", fset.Position(n.Pos()), n.Sel.Name)
				case n.Sel.Name == "unsanitised" && !unsanitisedIn[name]:
					t.Errorf("%s: the unsanitised stream is for protocols and readline only", fset.Position(n.Pos()))
				case n.Sel.Name == "dest" && name != "output.go":
					t.Errorf("%s: an output's stream is written by output.go only", fset.Position(n.Pos()))
				}
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "sgr" && name != "output.go" && name != "style.go" {
					t.Errorf("%s: only the CLI's own colours are sgr values", fset.Position(n.Pos()))
				}
			}
			return true
		})
	}
}
