package main

// The scaffolds of `crystal-star new --kind KIND`: each the smallest
// plugin of its kind worth starting from, with a scenario that proves it.
// The words ID, SHORT, TITLE and FIELD are replaced as in scaffold.

// scaffoldKind is one kind's plugin: the manifest's description and extra
// lines, the module and the scenario.
type scaffoldKind struct {
	description string
	manifest    string // lines after description (capabilities)
	module      string
	scenario    string
	try         string // the README's dev-console example
}

// scaffoldKinds are the kinds of --kind, by name. "" is the default: one
// contribution of each common kind (scaffoldModule).
var scaffoldKinds = map[string]scaffoldKind{
	"tool":    {"Counts the words of a text: one tool.", "", toolModule, toolScenario, `/call SHORT_count {"text": "one two"}`},
	"command": {"Asks for a review: one slash command.", "", commandModule, commandScenario, `/SHORT main.go`},
	"status":  {"Shows the session's age on the status line: one status field and a timer.", "", statusModule, statusScenario, `/advance 1m`},
	"guard":   {"Denies destructive shell commands: one dispatch policy.", "", guardModule, guardScenario, `/dispatch bash {"command": "rm -rf /"}`},
	"model": {"Summarizes a text with the session model: one tool that calls a model.",
		"capabilities = [\"models\"]  # ctx.models: the session and review models (docs/api.md)\n",
		modelModule, modelScenario, `/call SHORT_summarize {"text": "..."}`},
}

// kindNames lists the kinds, for usage and errors.
const kindNames = "tool|command|status|guard|model"

const toolModule = `"""TITLE: a tool.

The tool SHORT_count counts the words and lines of a text. Its parameters
are a JSON schema: the host checks the arguments before run is called, so
run reads args["text"] without checking its type.

Test it with ` + "`crystal-star test`" + ` (testdata/*.txtar, docs/testing.md).
"""

def count(ctx, args):
    text = args["text"].strip()
    if not text:
        return error("empty_text", "text is empty")  # a stable code the model sees
    return {"words": len(text.split()), "lines": len(text.splitlines())}  # a dict is a JSON result

contribute(
    tools = [tool(
        name = "SHORT_count",
        description = "Counts the words and lines of a text.",
        parameters = {
            "type": "object",
            "properties": {"text": {"type": "string", "description": "The text to count."}},
            "required": ["text"],
            "additionalProperties": False,
        },
        catalogs = "plan_and_work",  # offered while planning and while working
        read_only = True,  # a policy hint: it changes nothing
        run = count,
    )],
)
`

const toolScenario = `# crystal-star test runs this scenario with the plugin as a development
# plugin of every crystal-star command (docs/testing.md).

# A dict is a structured (JSON) result.
exec crystal-star call SHORT_count '{"text": "one two three"}' --json
json stdout .data.words '^3$'
json stdout .data.lines '^1$'

# An empty text is an error with a stable code; arguments that break the
# schema never reach run.
! exec crystal-star call SHORT_count '{"text": " "}'
stderr '^empty_text: text is empty$'
! exec crystal-star call SHORT_count '{"text": 1}'
stderr '^invalid_arguments: '
`

const commandModule = `"""TITLE: a slash command.

/SHORT FILE... turns its arguments into this turn's input: the text the
model is asked. Returning None passes (no input this turn); ctx.out writes
notes the user sees.

Test it with ` + "`crystal-star test`" + ` (testdata/*.txtar, docs/testing.md).
"""

def review(ctx, inv):
    files = inv.args.strip()
    if not files:
        ctx.out.fail("usage: /SHORT FILE...")
        return None  # no input this turn
    ctx.out.write("asking for a review of " + files)
    return "Review %s: first for bugs, then for style. Quote the lines you mean." % files

contribute(
    commands = [command(
        name = "SHORT",
        description = "Asks the model for a review of some files.",
        argument_hint = "FILE...",
        run = review,
    )],
)
`

const commandScenario = `# crystal-star test runs this scenario with the plugin as a development
# plugin of every crystal-star command (docs/testing.md).

# The command's result is this turn's input; ctx.out.write is a note.
exec crystal-star expand /SHORT main.go
stdout '^Review main.go: first for bugs, then for style. Quote the lines you mean.$'
stderr 'asking for a review of main.go'

# Without arguments it fails with a note and produces no input (exit 1).
! exec crystal-star expand /SHORT
stderr 'usage: /SHORT FILE...'
stderr '^/SHORT produced no input'
! stdout .
`

const statusModule = `"""TITLE: a status field, kept up to date by a timer.

The field FIELD shows how long the session has run. attach_status sets its
first text; the timer sets it every minute. Per-generation state lives in
ctx.store (module globals are frozen). The operator puts the field on the
line with status_line = ["FIELD"] in config.toml, or /statusline add FIELD.

Test it with ` + "`crystal-star test`" + ` (testdata/*.txtar, docs/testing.md): timers
run on a manual clock there, moved by the dev console's /advance.
"""

def attach_status(ctx, status):
    status.set("FIELD", "0 min")

def tick(ctx):
    minutes = ctx.store.get("minutes", 0) + 1
    ctx.store["minutes"] = minutes
    ctx.status.set("FIELD", "%d min" % minutes)

contribute(
    status_fields = [status_field(name = "FIELD", description = "Minutes since the session started")],
    timers = [timer(every = "1m", run = tick)],
    attach_status = attach_status,
)
`

const statusScenario = `# crystal-star test runs this scenario with the plugin as a development
# plugin of every crystal-star command (docs/testing.md).

# The operator's line shows the field once attach_status set it.
exec crystal-star status
stdout '0 min'

# In the dev console the timer runs on the manual clock: /advance moves it.
stdin console.txt
exec crystal-star dev
stdout '^advanced 1m0s: 1 timer runs$'
stdout '^status: 1 min$'
stdout '^status: 2 min$'

-- home/config.toml --
status_line = ["FIELD"]
-- console.txt --
/advance 1m
/advance 1m
/quit
`

const guardModule = `"""TITLE: a guard.

A dispatch_policy entry sees every tool call before it runs and denies it
by returning the reason, a string; None lets it through. This is where a
guard belongs: a tool_call hook cannot deny a call (docs/points.md).

Test it with ` + "`crystal-star test`" + ` (testdata/*.txtar, docs/testing.md).
"""

DESTRUCTIVE = ["rm -rf", "git push --force", "mkfs"]

# The shell tool's name in each host: crystal-star's own and DotCraft's
# bash, Claude Code's Bash, Gemini CLI's run_shell_command
# (docs/agent-hosts.md). A guard that names only one lets the others through.
SHELL_TOOLS = ["bash", "Bash", "run_shell_command"]

def policy(ctx, call):
    if call["name"] not in SHELL_TOOLS:
        return None
    command = call["arguments"].get("command", "")
    for pattern in DESTRUCTIVE:
        if pattern in command:
            return "ID refuses %r: it contains %r" % (command, pattern)
    return None  # no objection: the next policy, then approval, decide

contribute(
    dispatch_policies = [dispatch_policy(run = policy)],
)
`

const guardScenario = `# crystal-star test runs this scenario with the plugin as a development
# plugin of every crystal-star command (docs/testing.md).

# The dev console's /dispatch runs a tool call through the whole pipeline:
# the policy denies the destructive command and lets the other through.
stdin console.txt
exec crystal-star dev
stdout '^dispatch call-1 bash: risk high, refused$'
stdout '^  error call_denied: ID refuses "rm -rf /tmp/x": it contains "rm -rf"$'
stdout '^dispatch call-2 bash: risk high, approved$'

# The same policy guards Claude Code's Bash and Gemini CLI's
# run_shell_command through their hooks (docs/agent-hosts.md).
stdin claude.json
exec crystal-star hook claude-code
stdout '"permissionDecision":"deny"'
stdout 'ID refuses'
stdin gemini.json
exec crystal-star hook gemini-cli
stdout '"decision":"deny"'
stdout 'ID refuses'

-- console.txt --
/dispatch bash {"command": "rm -rf /tmp/x"}
/dispatch bash {"command": "ls"}
/quit
-- claude.json --
{"session_id":"s1","cwd":".","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"},"tool_use_id":"toolu_1"}
-- gemini.json --
{"session_id":"g1","cwd":".","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"rm -rf /"}}
`

const modelModule = `"""TITLE: a tool that calls the session model.

The plugin declares capabilities = ["models"] (plugin.toml), so its ctx has
models: ctx.models.session is the session model's client, None until the
host has a model. Model calls are not part of the transcript or the turn.

Test it with ` + "`crystal-star test`" + ` (testdata/*.txtar, docs/testing.md): fakemodel
answers there, with scripted replies.
"""

def summarize(ctx, args):
    client = ctx.models.session
    if client == None:
        return error("no_model", "no session model is configured")
    reply = client.complete([
        {"role": "system", "content": "Summarize the user's text in one sentence."},
        {"role": "user", "content": args["text"]},
    ], max_tokens = 200, on_error = "return")
    if not reply:
        return reply  # error(code, message): rate_limited, unauthorized, ...
    return reply.strip()

contribute(
    tools = [tool(
        name = "SHORT_summarize",
        description = "Summarizes a text in one sentence.",
        parameters = {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
            "additionalProperties": False,
        },
        catalogs = "plan_and_work",
        read_only = True,
        run = summarize,
    )],
)
`

const modelScenario = `# crystal-star test runs this scenario with the plugin as a development
# plugin of every crystal-star command (docs/testing.md).

# No model configured: the tool says so with a stable code.
! exec crystal-star call SHORT_summarize '{"text": "x"}'
stderr '^no_model: no session model is configured$'

# fakemodel points the session at a local model with scripted replies.
fakemodel --replies replies.txt
exec crystal-star call SHORT_summarize '{"text": "We shipped the release and then wrote the changelog."}'
stdout '^Release shipped, changelog written.$'
grep 'Summarize the user' model-requests.log

-- replies.txt --
Release shipped, changelog written.
`
