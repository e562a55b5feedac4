package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/crystal-star/crystal-star/starhost"
)

var newCmd = command{name: "new", args: "NAME",
	summary: "scaffold a plugin that passes check and test",
	flags: []flagSpec{{name: "dir", value: "DIR", help: "where to write the plugin (default ./NAME)"},
		{name: "kind", value: "KIND", help: "what the plugin is for: " + kindNames + " (default: one of each common kind)"}},
	example: "new acme.hello --dir plugins/hello", run: runNew}

// runNew writes a plugin whose id is NAME into DIR (default ./NAME): a
// manifest, a module, a scenario exercising it and a short README. The
// module is the starting point of --kind (new_kinds.go); without it, one
// tool (with a schema), one command, one placeholder and one status field.
// It refuses to overwrite any file.
func runNew(e *env, args []string) error {
	f, err := e.flags(args)
	if err != nil {
		return err
	}
	if len(f.args) != 1 {
		return usagef("usage: crystal-star new NAME [--dir DIR] [--kind %s]", kindNames)
	}
	kind := f.set["kind"]
	if _, ok := scaffoldKinds[kind]; !ok && kind != "" {
		return usagef("new: --kind %s is not a kind: want %s%s", kind, kindNames, didYouMean(kind, strings.Split(kindNames, "|"), ""))
	}
	id := f.args[0]
	if err := starhost.CheckPluginID(id); err != nil {
		return usagef("new: %q is not a plugin id: %v", id, err)
	}
	dir := id
	if d, ok := f.set["dir"]; ok {
		dir = d
	}
	files := scaffold(id, kind)
	for _, name := range scaffoldOrder(id) {
		if _, err := os.Lstat(filepath.Join(dir, name)); !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("new: %s already exists; nothing was written (choose another --dir)", filepath.Join(dir, name))
		}
	}
	for _, name := range scaffoldOrder(id) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		out, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		_, err = out.WriteString(files[name])
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "wrote %s\n", filepath.ToSlash(p))
	}
	fmt.Fprintf(e.stdout, "next: crystal-star check %s && crystal-star test %s\n", filepath.ToSlash(dir), filepath.ToSlash(dir))
	return nil
}

// scaffoldOrder lists the files of a scaffold in the order they are
// written; the scenario is named after the plugin.
func scaffoldOrder(id string) []string {
	return []string{"plugin.toml", "plugin.star", "testdata/" + id + ".txtar", "README.md"}
}

// scaffold returns the files of a new plugin with id of kind ("": the
// default, one contribution of each common kind), by path.
func scaffold(id, kind string) map[string]string {
	short := shortName(id)
	title := strings.ReplaceAll(short, "_", " ")
	title = strings.ToUpper(title[:1]) + title[1:]
	field := strings.ReplaceAll(short, "_", "-") + "-greeted" // status fields take hyphens
	r := strings.NewReplacer("ID", id, "FIELD", field, "SHORT", short, "TITLE", title)
	k, ok := scaffoldKinds[kind]
	if !ok {
		k = scaffoldKind{description: scaffoldDescription, module: scaffoldModule, scenario: scaffoldScenario, try: `/call SHORT_greet {"name": "Ada"}`}
	}
	if kind == "status" {
		// The field is the plugin's only one: name it for what it shows.
		r = strings.NewReplacer("ID", id, "FIELD", strings.ReplaceAll(short, "_", "-")+"-age", "SHORT", short, "TITLE", title)
	}
	manifest := scaffoldManifest + "description = \"" + k.description + "\"\n" + k.manifest
	readme := strings.Replace(scaffoldReadme, "TRY", k.try, 1)
	return map[string]string{
		"plugin.toml":               r.Replace(manifest),
		"plugin.star":               r.Replace(k.module),
		"testdata/" + id + ".txtar": r.Replace(k.scenario),
		"README.md":                 r.Replace(readme),
	}
}

// shortName derives the stem of contribution names from a plugin id: its
// last dot-separated part, with "-" as "_" ("acme.hello-world" →
// "hello_world"), kept to a length that leaves room for suffixes.
func shortName(id string) string {
	parts := strings.Split(id, ".")
	s := ""
	for i := len(parts) - 1; i >= 0 && s == ""; i-- {
		s = parts[i]
	}
	s = strings.ReplaceAll(s, "-", "_")
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		s = "plugin_" + s
	}
	if len(s) > 40 {
		s = strings.TrimRight(s[:40], "_")
	}
	return s
}

const scaffoldManifest = `# The manifest: docs/authoring.md lists every key.
id = "ID"
version = "0.1.0"
display_name = "TITLE"
`

const scaffoldDescription = "Greets people: one tool, one command, one placeholder and one status field."

const scaffoldModule = `"""TITLE: one contribution of each common kind.

- the tool SHORT_greet greets someone by name; its parameters are a JSON schema;
- the command /SHORT turns its arguments into this turn's input;
- the placeholder {{SHORT_greeted}} binds to how many people this session greeted;
- the status field FIELD shows the same count on the status line.

Test it with ` + "`crystal-star test`" + ` (testdata/*.txtar, docs/testing.md).
"""

def greet(ctx, args):
    name = args["name"].strip()
    if not name:
        return error("empty_name", "name is empty")  # a stable code the model sees
    # ctx.store is the generation's, shared by every session the host
    # serves: a count of this session's is keyed by its id.
    key = "greeted/" + ctx.session_id
    count = ctx.store.get(key, 0) + 1
    ctx.store[key] = count
    ctx.status.set("FIELD", "%d greeted" % count)  # this session's line only
    return "Hello, %s!" % name

def greet_command(ctx, inv):
    if not inv.args.strip():
        ctx.out.fail("usage: /SHORT WHO")
        return None  # no input this turn
    return "Greet %s warmly." % inv.args.strip()

def greeted(ctx):
    return str(ctx.store.get("greeted/" + ctx.session_id, 0))

def attach_status(ctx, status):
    status.set("FIELD", "nobody greeted yet")

contribute(
    tools = [tool(
        name = "SHORT_greet",
        description = "Greets someone by name.",
        parameters = {
            "type": "object",
            "properties": {"name": {"type": "string", "description": "Who to greet."}},
            "required": ["name"],
            "additionalProperties": False,
        },
        catalogs = "work",
        run = greet,
    )],
    commands = [command(name = "SHORT", description = "Asks for a warm greeting.", run = greet_command)],
    placeholders = [placeholder(name = "SHORT_greeted", resolve = greeted)],
    status_fields = [status_field(name = "FIELD", description = "People greeted this session")],
    attach_status = attach_status,
)
`

const scaffoldScenario = `# crystal-star test runs this scenario with the plugin as a development
# plugin of every crystal-star command (docs/testing.md).

# The tool answers; an empty name is an error with a stable code.
exec crystal-star call SHORT_greet '{"name": "Ada"}'
stdout '^Hello, Ada!$'
! exec crystal-star call SHORT_greet '{"name": " "}'
stderr '^empty_name: name is empty$'

# The command turns its arguments into this turn's input.
exec crystal-star expand /SHORT the team
stdout '^Greet the team warmly.$'

# In the dev console the tool, the placeholder and the status field share
# one generation.
stdin console.txt
exec crystal-star dev
stdout '^Hello, Grace!$'
stdout '^Greeted so far: 1$'
stdout '^status: 1 greeted$'

-- home/config.toml --
status_line = ["FIELD"]
-- console.txt --
/call SHORT_greet {"name": "Grace"}
/render Greeted so far: {{SHORT_greeted}}
/quit
`

const scaffoldReadme = "# TITLE\n\n" +
	"A crystal-star plugin (id `ID`), scaffolded by `crystal-star new`.\n\n" +
	"```sh\n" +
	"crystal-star check .         # lint the manifest and the Starlark\n" +
	"crystal-star test .          # run testdata/*.txtar\n" +
	"crystal-star dev .           # hot-reload console: TRY\n" +
	"```\n\n" +
	"docs/authoring.md explains each part of plugin.star; docs/testing.md the scenario.\n"
