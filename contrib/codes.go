package contrib

// Code is a stable diagnostic code. Codes never change meaning; the runtime,
// `crystal-star check` and the documentation (docs/diagnostics.md) share this
// one catalogue.
type Code string

// CodeInfo describes one code: its severity, what it means and how to fix it.
type CodeInfo struct {
	Code     Code
	Severity Severity
	Summary  string
	Fix      string
}

// The catalogue of codes. Each is documented, with an example and its fix, in
// docs/diagnostics.md; a test keeps the two in step.
const (
	// Manifests and discovery (AT4).
	ManifestMissing    Code = "ManifestMissing"
	ManifestSyntax     Code = "ManifestSyntax"
	ManifestUnknownKey Code = "ManifestUnknownKey"
	ManifestInvalid    Code = "ManifestInvalid"
	EntryMissing       Code = "EntryMissing"
	DuplicatePluginID  Code = "DuplicatePluginId"
	PluginDisabled     Code = "PluginDisabled"
	ConfigUnknownKey   Code = "ConfigUnknownKey"
	ConfigUnreadable   Code = "ConfigUnreadable"
	ConfigValueInvalid Code = "ConfigValueInvalid"

	// Admission (DC15, DC17, DC22, DC24).
	PluginUntrusted       Code = "PluginUntrusted"
	PluginTrustModified   Code = "PluginTrustModified"
	TrustFileUnreadable   Code = "TrustFileUnreadable"
	WorkspaceTrustIgnored Code = "WorkspaceTrustIgnored"
	// External tool sets (MC7).
	WorkspaceToolSetIgnored         Code = "WorkspaceToolSetIgnored"
	ToolSetFailed                   Code = "ToolSetFailed"
	PluginDependencyUnsatisfied     Code = "PluginDependencyUnsatisfied"
	PluginAPIAssemblyConflict       Code = "PluginApiAssemblyConflict"
	HostVersionTooOld               Code = "HostVersionTooOld"
	PluginContributionQuiesceFailed Code = "PluginContributionQuiesceFailed"

	// Starlark source (AT3).
	SyntaxError  Code = "SyntaxError"
	ResolveError Code = "ResolveError"
	LoadMissing  Code = "LoadMissing"
	LoadOutside  Code = "LoadOutsideBundle"
	LoadCycle    Code = "LoadCycle"

	// Execution (AT2, DC24).
	ExecutionFailed Code = "ExecutionFailed"
	TooManySteps    Code = "TooManySteps"
	// ResourceExhausted: the heap grew past memory_limit while the run's
	// plugin code ran, or one operation would allocate past the guard.
	ResourceExhausted Code = "ResourceExhausted"
	// CallbackTimeout: a run outlived callback_timeout.
	CallbackTimeout Code = "CallbackTimeout"
	HostPanic       Code = "HostPanic"
	PrintNote       Code = "Print"
	// ContentDropped: a tool result's image or audio parts were dropped for
	// a model that cannot take them (MC1).
	ContentDropped Code = "ContentDropped"
	CallbackFailed Code = "CallbackFailed"
	CommandOutput  Code = "CommandOutput"
	CommandFailed  Code = "CommandFailed"

	// contribute() and its entries (CC2, DC5).
	ContributeMissing Code = "ContributeMissing"
	ContributeTwice   Code = "ContributeTwice"
	NoneEntry         Code = "NoneEntry"

	// Tools (CC4, CC5, CC6, DC4).
	ToolNameInvalid      Code = "ToolNameInvalid"
	toolNameReserved     Code = "ToolNameReserved"
	ToolDuplicate        Code = "ToolDuplicate"
	toolNamespaceInvalid Code = "ToolNamespaceInvalid"
	ToolNameTaken        Code = "ToolNameTaken"
	toolNoCatalog        Code = "ToolNoCatalog"
	ToolSchemaInvalid    Code = "ToolSchemaInvalid"
	ExternalToolShadowed Code = "ExternalToolShadowed"

	// Commands (CC11, DC8).
	commandNameInvalid Code = "CommandNameInvalid"
	commandShadowed    Code = "CommandShadowed"

	// Placeholders (CC12, CC13).
	placeholderNameInvalid Code = "PlaceholderNameInvalid"
	placeholderReserved    Code = "PlaceholderReserved"
	placeholderTaken       Code = "PlaceholderTaken"
	PlaceholderFailed      Code = "PlaceholderFailed"

	// Hot reload.
	WatchFailed Code = "WatchFailed"

	// Isolation and resource limits (issue 11, docs/isolation.md).
	WorkerFailed         Code = "WorkerFailed"
	IsolationWeakened    Code = "IsolationWeakened"
	IsolationUnsupported Code = "IsolationUnsupported"
	MemoryLimitClamped   Code = "MemoryLimitClamped"

	// Status fields (CC15).
	StatusFieldRejected Code = "StatusFieldRejected"
	StatusFieldUnknown  Code = "StatusFieldUnknown"

	// Background work and data directories (issue 24).
	// BackgroundWorkFailed: a timer's run failed TimerFaultThreshold
	// times in a row; the plugin is faulted (DC24).
	BackgroundWorkFailed Code = "BackgroundWorkFailed"
	// DataDirRefused: a data directory belongs to another plugin id, or
	// its owner record cannot be read; the plugin gets no data directory.
	DataDirRefused Code = "DataDirRefused"

	// Models, client factories and classifiers (CC8–CC10, CC21, CC24–CC27).
	ProvidersInvalid       Code = "ProvidersInvalid"
	ProviderKeyUnset       Code = "ProviderKeyUnset"
	ProviderAdapterMissing Code = "ProviderAdapterMissing"
	ModelUnknown           Code = "ModelUnknown"
	clientFactoryRejected  Code = "ClientFactoryRejected"
	ClientFactoryTaken     Code = "ClientFactoryTaken"
	ModelAccess            Code = "ModelAccess"
	ModelClientFailed      Code = "ModelClientFailed"
	// AskUnanswered: a ctx.ask waited past ask_timeout.
	AskUnanswered Code = "AskUnanswered"

	// Contribution points and hooks (DC1–DC3, DC9, HK1–HK3).
	PointEntryInvalid    Code = "PointEntryInvalid"
	ReplaceConflict      Code = "ReplaceConflict"
	PointEntrySkipped    Code = "PointEntrySkipped"
	PointOperationFailed Code = "PointOperationFailed"
	HookSkipped          Code = "HookSkipped"
	HookCannotDeny       Code = "HookCannotDeny"
	RawHookRegistered    Code = "RawHookRegistered"
	RawHookRefused       Code = "RawHookRefused"

	// Style: the curated buildifier warnings of `crystal-star check`
	// (builtins.styleWarnings, docs/check.md).
	StyleUnusedVariable     Code = "StyleUnusedVariable"
	StyleUnusedLoad         Code = "StyleUnusedLoad"
	StyleUnreachable        Code = "StyleUnreachable"
	StyleNoEffect           Code = "StyleNoEffect"
	StyleUninitialized      Code = "StyleUninitialized"
	StyleReturnValue        Code = "StyleReturnValue"
	StyleStringIteration    Code = "StyleStringIteration"
	StyleIntegerDivision    Code = "StyleIntegerDivision"
	StyleDictConcatenation  Code = "StyleDictConcatenation"
	StyleDictMethodNamedArg Code = "StyleDictMethodNamedArg"
	StyleConfusingName      Code = "StyleConfusingName"
	StyleNameConventions    Code = "StyleNameConventions"

	// Static checks of `crystal-star check`: what would fail only when a
	// callback runs, found before anything runs (starhost/check).
	ArgumentInvalid   Code = "ArgumentInvalid"
	CallbackArity     Code = "CallbackArity"
	CallbackReturn    Code = "CallbackReturn"
	CtxFieldUnknown   Code = "CtxFieldUnknown"
	CapabilityMissing Code = "CapabilityMissing"
	// RemoteIneligible: a tool marked remote = True needs what an
	// executor cannot give (docs/remote.md): the models capability, session
	// or review facts, the status sink, or session-only attach stages.
	RemoteIneligible Code = "RemoteIneligible"
	// RemoteBundleRefused: an executor refused a bundle (ungranted
	// fingerprint, tampered archive, a remote-ineligible plugin).
	RemoteBundleRefused Code = "RemoteBundleRefused"
	// ExecutorUnavailable: an executor of a plugin's remote tools could
	// not be reached or refused a bundle; calls go to the others.
	ExecutorUnavailable Code = "ExecutorUnavailable"
)

// Catalogue lists every code once, in documentation order.
var Catalogue = []CodeInfo{
	{ManifestMissing, SeverityError, "The plugin directory has no plugin.toml.", "Add a plugin.toml with at least id and version."},
	{ManifestSyntax, SeverityError, "plugin.toml is not valid TOML.", "Fix the TOML syntax at the position shown."},
	{ManifestUnknownKey, SeverityError, "plugin.toml has a key the host does not know.", "Remove the key or correct its spelling."},
	{ManifestInvalid, SeverityError, "A plugin.toml value breaks its rule (id, version, capabilities, dependencies, min_host_version).", "Correct the value as the message says."},
	{EntryMissing, SeverityError, "The entry file named in plugin.toml does not exist.", "Create the file or set entry to an existing .star file."},
	{DuplicatePluginID, SeverityWarning, "Two plugin roots hold the same id; the higher root wins.", "Remove or rename one of the two plugins."},
	{PluginDisabled, SeverityNote, "The plugin is disabled by its manifest or the configuration.", "Enable the plugin in the configuration, or set enabled = true in its manifest."},
	{ConfigUnknownKey, SeverityWarning, "config.toml has a key the host does not know; it is ignored.", "Remove the key or correct its spelling."},
	{ConfigUnreadable, SeverityWarning, "A config.toml layer is not valid TOML; it is ignored and never rewritten.", "Fix the TOML at the position shown."},
	{ConfigValueInvalid, SeverityWarning, "A config.toml key has a value the host cannot use, or the workspace layer tries to loosen a limit; the key is ignored.", "Correct the value as the message says; loosen limits only in {home}/config.toml."},
	{PluginUntrusted, SeverityError, "No trust grant exists for the plugin id; none of its code runs.", "Review the plugin, then grant trust to its content."},
	{PluginTrustModified, SeverityError, "The plugin's content changed since it was granted; none of its code runs.", "Review the change, then grant trust to the new content."},
	{TrustFileUnreadable, SeverityError, "The trust file cannot be parsed, so nothing is trusted; it is never overwritten.", "Fix or remove the trust file by hand."},
	{WorkspaceTrustIgnored, SeverityWarning, "A trust file or trust key inside the workspace is ignored; only the home trust file grants trust.", "Remove it; grant trust in the home trust file instead."},
	{WorkspaceToolSetIgnored, SeverityWarning, "A workspace config.toml declares tool sets; a cloned repository must never start a process, so they are ignored (MC7).", "Declare the tool set in {home}/config.toml."},
	{ToolSetFailed, SeverityWarning, "An external tool set (an MCP server) failed to start or died; its tools answer tool_unavailable until it is back, and the host restarts it with backoff (MC7).", "Fix the command or url under [tool_sets.NAME] in {home}/config.toml, or set enabled = false."},
	{PluginDependencyUnsatisfied, SeverityError, "A dependency is missing, disabled, blocked, on another compatibility line, or part of a cycle.", "Install, enable or upgrade the provider named in the message."},
	{PluginAPIAssemblyConflict, SeverityError, "Two providers of the plugin export the same service name.", "Depend on only one of the providers, or rename an export."},
	{HostVersionTooOld, SeverityError, "The plugin needs a newer host (min_host_version).", "Upgrade the host or lower min_host_version."},
	{PluginContributionQuiesceFailed, SeverityError, "A bundle could not be replaced because the plugin's work did not stop; the directory is untouched.", "Wait for the running work to end, then install again."},
	{SyntaxError, SeverityError, "The Starlark source does not parse.", "Fix the syntax at the position shown."},
	{ResolveError, SeverityError, "The Starlark source uses a name that is not defined.", "Define the name, load it, or correct its spelling."},
	{LoadMissing, SeverityError, "load() names a file that is not in the bundle.", "Create the file or correct the path."},
	{LoadOutside, SeverityError, "load() names a path outside the plugin directory.", "Keep every loaded file inside the plugin directory."},
	{LoadCycle, SeverityError, "Files load each other in a cycle.", "Break the cycle shown in the message."},
	{ExecutionFailed, SeverityError, "The module failed while executing; the plugin is faulted.", "Fix the error at the top of the backtrace."},
	{TooManySteps, SeverityError, "A run exceeded its step budget and was cancelled.", "Remove the unbounded loop or do less work per call."},
	{HostPanic, SeverityError, "A host builtin panicked while serving the plugin; the plugin is faulted.", "Report the bug with the message; other plugins are unaffected."},
	{PrintNote, SeverityNote, "A debug line from print().", "Nothing to fix; remove the print when done."},
	{ContentDropped, SeverityNote, "A tool returned image or audio parts the session model cannot take; only the text and resources reach it (MC1).", "Nothing to fix; select a model with image input to pass images."},
	{CallbackFailed, SeverityWarning, "A plugin callback (tool, command, placeholder, attach) failed; the failure was contained.", "Fix the error at the top of the backtrace."},
	{CommandOutput, SeverityNote, "A command wrote a line with ctx.out.write; it is a session note.", "Nothing to fix."},
	{CommandFailed, SeverityWarning, "A command reported a failure with ctx.out.fail; it is a session note.", "Act on the command's message."},
	{ContributeMissing, SeverityError, "The module never called contribute().", "Call contribute(...) once at top level."},
	{ContributeTwice, SeverityError, "contribute() was called more than once; only the first call counts.", "Merge the calls into one contribute(...)."},
	{NoneEntry, SeverityNote, "A None entry in a contribute() list was left out.", "Remove the None or build the entry conditionally."},
	{ToolNameInvalid, SeverityError, "A tool name breaks ^[A-Za-z][A-Za-z0-9_-]*$ or is longer than 64 characters.", "Rename the tool."},
	{toolNameReserved, SeverityError, "A tool takes the name of a built-in tool.", "Rename the tool."},
	{ToolDuplicate, SeverityError, "The plugin declares the same tool name twice; the later one is left out.", "Rename or remove the second tool."},
	{toolNamespaceInvalid, SeverityError, "A tool namespace is not a letter followed by letters, digits, '_', '-' or '.', up to 64 characters (MC4).", "Fix the namespace, or leave it out to use the plugin id."},
	{ToolNameTaken, SeverityWarning, "An earlier plugin in load order already has a tool of this name; this one is left out.", "Rename the tool or disable the other plugin."},
	{toolNoCatalog, SeverityError, "A tool names no catalog (plan, work or plan_and_work).", "Set catalogs = \"plan\", \"work\" or \"plan_and_work\"."},
	{ToolSchemaInvalid, SeverityError, "A tool's parameters are not a valid JSON Schema.", "Fix the schema at the path shown."},
	{ExternalToolShadowed, SeverityWarning, "An external tool has the name of a disk plugin tool and is left out.", "Rename the external tool."},
	{commandNameInvalid, SeverityError, "A command name or alias breaks the tool-name pattern.", "Rename the command or alias."},
	{commandShadowed, SeverityWarning, "A command name or alias is a built-in verb, which always wins.", "Rename the command or alias."},
	{placeholderNameInvalid, SeverityError, "A placeholder name is not a letter followed by up to 63 letters, digits or underscores.", "Rename the placeholder."},
	{placeholderReserved, SeverityError, "A placeholder takes a name the host owns.", "Rename the placeholder."},
	{placeholderTaken, SeverityWarning, "An earlier plugin in load order already has this placeholder; this one is left out.", "Rename the placeholder or disable the other plugin."},
	{PlaceholderFailed, SeverityWarning, "A placeholder's resolve failed or returned nothing; the token was left in place.", "Make resolve return a string."},
	{WatchFailed, SeverityWarning, "The file watcher reported an error; some changes may not reload.", "Save the file again, or use /reload in the dev console."},
	{ResourceExhausted, SeverityError, "Plugin code exceeded memory_limit: in process, the heap grew past it while the run's code ran, or one operation would have allocated more, and the run was cancelled; in process mode its worker was killed and the plugin is faulted.", "Build smaller values or do less work per call, or raise memory_limit in config.toml."},
	{CallbackTimeout, SeverityError, "A run outlived callback_timeout: in process it was cancelled at its next step; in process mode its worker was killed and the plugin is faulted.", "Make the callback finish sooner, or raise callback_timeout in config.toml."},
	{WorkerFailed, SeverityError, "A plugin's worker process crashed, could not start, or wrote garbage to its channel; it was killed and the plugin is faulted.", "Read the cause in the message; reload or enable the plugin to start a fresh worker."},
	{IsolationUnsupported, SeverityWarning, "The plugin runs in process isolation and depends on a provider in the host process, whose services cannot reach the worker.", "Run the provider and its dependents in the same isolation mode."},
	{MemoryLimitClamped, SeverityWarning, "Process isolation runs under an inherited hard address-space limit (ulimit -v, LimitAS=) below what memory_limit needs in a worker; the workers run under the hard limit instead.", "Raise or remove the hard limit where the host is started, or lower memory_limit."},
	{IsolationWeakened, SeverityWarning, "A workspace config.toml tried to weaken isolation (process to in_process); the stricter setting stays.", "Set isolation in {home}/config.toml, or remove the workspace key."},
	{StatusFieldRejected, SeverityError, "A status field name is illegal, reserved, built-in or already taken.", "Rename the field."},
	{StatusFieldUnknown, SeverityWarning, "status.set or status.clear named a field this plugin did not register; the call is ignored (one note per name).", "Declare the field with status_field(...) or correct the name."},
	{BackgroundWorkFailed, SeverityError, "A timer's run failed 5 times in a row; the plugin is faulted and its timers stop.", "Fix the error at the top of the backtrace; a fixed save, a reload or disable and enable brings the plugin back."},
	{DataDirRefused, SeverityError, "A data directory belongs to another plugin id (or its owner record cannot be read), so this plugin gets no data directory: ctx.data is None and attach_data_dirs does not run.", "Remove or rename the directory the message names if this plugin should have it, or give one of the two plugins another directory name."},
	{ProvidersInvalid, SeverityError, "providers.json is not valid JSON or breaks a rule; no provider is available until it is fixed.", "Fix the file at the line and column shown."},
	{ProviderKeyUnset, SeverityWarning, "A provider's api_key_env names an environment variable that is not set; its model calls go out without an API key.", "Export the variable, or remove api_key_env for a provider that needs no key."},
	{ProviderAdapterMissing, SeverityError, "A provider names a built-in protocol whose adapter package the host program does not import; its models cannot be called.", "In the embedding program, import the adapter package the message names (or starhost/models/builtin for all six)."},
	{ModelUnknown, SeverityWarning, "config.toml selects a model (model, review_model) that providers.json does not list, or a setting the model does not offer.", "Use provider/model as listed in providers.json, or add the model there."},
	{clientFactoryRejected, SeverityError, "A client factory's protocol is not a valid token, is reserved by the host, or is declared twice; the factory is left out.", "Use your own protocol token: a letter, then letters, digits, _ or -."},
	{ClientFactoryTaken, SeverityWarning, "An earlier plugin in load order already owns this protocol; this factory is not used.", "Rename the protocol or disable the other plugin."},
	{ModelAccess, SeverityNote, "The plugin declares the models capability and can call the session and review models with the operator's credentials.", "Nothing to fix; remove \"models\" from capabilities if the plugin should not."},
	{AskUnanswered, SeverityNote, "A tool or command asked the person (ctx.ask) and nobody answered within ask_timeout; the callback got None, as for a dismissed question.", "Answer sooner, or raise ask_timeout in config.toml; a plugin handles None as \"not answered\"."},
	{ModelClientFailed, SeverityWarning, "The host could not build a model client (a factory's not_supported, a missing adapter or API key, an unknown provider).", "Change the setting named in the message (/tier, /speed, /model) or fix providers.json."},
	{PointEntryInvalid, SeverityError, "A contribution-point entry breaks its point's rules (a replace target the point does not have, a tier it does not offer, thread scope in contribute()); it is left out.", "Correct the entry as the message says; docs/points.md lists each point's tiers and targets."},
	{ReplaceConflict, SeverityWarning, "Two entries replace the same named default; this one lost (thread scope beats workspace scope, then the later registration wins) and is not used while the other is registered.", "Replace a different target, or disable the other plugin; order does not decide."},
	{PointEntrySkipped, SeverityWarning, "An entry of a contribution point failed or answered with an unusable value; it was skipped and the rest of the point still ran.", "Fix the error at the top of the backtrace, or return the shape docs/points.md gives for the point."},
	{PointOperationFailed, SeverityError, "An entry of an authoritative point (policy, approval, normalizer, compaction summary) failed, so the operation it served failed.", "Fix the entry; return error(code, message) for an expected failure."},
	{HookSkipped, SeverityWarning, "A hook failed, or returned a replacement beyond its event's powers; it was skipped and the next hook saw the previous value.", "Fix the error, or change only what the event allows (docs/points.md, hooks)."},
	{HookCannotDeny, SeverityError, "A tool_call, approval or tool_result hook returns error() or calls fail() (or failed at run time) as if that stopped the call; a hook cannot deny a call, so it was skipped and the call went on: the guard failed open.", "Deny in a dispatch_policy entry (return the reason as a string), or ask the user in a dispatch_approval entry (docs/points.md, guards)."},
	{RawHookRegistered, SeverityNote, "The plugin registered a raw hook, which may rewrite prompts, model calls, compaction and approval.", "Nothing to fix; review raw hooks before trusting the plugin."},
	{RawHookRefused, SeverityWarning, "A raw hook returned something the host cannot represent (a repeated item id, an unknown role or risk level, a wrong type); it was skipped.", "Return items with unique ids and known roles, and known risk levels."},
	{StyleUnusedVariable, SeverityWarning, "A local variable (or a private top-level one) is assigned but never read.", "Remove it, or name it _ when the value is deliberately ignored."},
	{StyleUnusedLoad, SeverityWarning, "A name loaded with load() is never used.", "Remove the name from the load() call."},
	{StyleUnreachable, SeverityWarning, "A statement follows return, break, continue or fail() and can never run.", "Remove the statement or move it before the jump."},
	{StyleNoEffect, SeverityWarning, "An expression statement computes a value nobody uses.", "Remove it, or assign or return the value."},
	{StyleUninitialized, SeverityWarning, "A variable may be read before any path assigned it.", "Assign the variable on every path before reading it."},
	{StyleReturnValue, SeverityWarning, "Some paths of a function return a value and others return nothing.", "Return a value (or an explicit None) on every path."},
	{StyleStringIteration, SeverityWarning, "A string is iterated; Starlark strings are not iterable, so this fails when it runs.", "Iterate over s.elems() (or s.split())."},
	{StyleIntegerDivision, SeverityWarning, "\"/\" divides into a float in Starlark, even for two integers.", "Use \"//\" (or \"//=\") for integer division."},
	{StyleDictConcatenation, SeverityWarning, "Two dicts are added with \"+\", which Starlark refuses when it runs.", "Use d1 | d2, or copy one dict and update() it."},
	{StyleDictMethodNamedArg, SeverityWarning, "A dict method is called with a named argument it accepts only by position.", "Pass the argument positionally."},
	{StyleConfusingName, SeverityWarning, "A variable is named l, I or O, which are easily mistaken for 1 and 0.", "Choose a longer name."},
	{StyleNameConventions, SeverityWarning, "A variable name is neither lower_snake_case nor UPPER_SNAKE_CASE.", "Rename it: lower_snake_case for variables, UPPER_SNAKE_CASE for constants."},
	{ArgumentInvalid, SeverityError, "A constructor call has an unknown keyword, lacks a required one, or passes a literal of the wrong type or value; the module would fail there.", "Correct the keyword or value as the message says; the nearest known name is suggested."},
	{CallbackArity, SeverityError, "A callback takes a different number of parameters than the host passes it; every call of it would fail.", "Declare the parameters the message shows, e.g. run(ctx, args)."},
	{CallbackReturn, SeverityError, "A callback evidently returns a value its host refuses (a number from a command, None from a placeholder, a function from a tool).", "Return what the message says the callback must return."},
	{CtxFieldUnknown, SeverityError, "A callback reads a ctx field (or a member of one) that its ctx does not have; the read would fail when it runs.", "Correct the name; the nearest field is suggested, and docs/api.md lists each callback's ctx."},
	{CapabilityMissing, SeverityError, "A callback uses ctx.models or ctx.data, but plugin.toml does not declare the capability, so the field is absent.", "Add the capability to capabilities = [...] in plugin.toml."},
	{RemoteIneligible, SeverityError, "A tool marked remote = True needs what an executor cannot give it: the models capability, ctx.session, ctx.review or ctx.status, or a session-only attach stage; an executor refuses to activate the plugin.", "Drop remote = True, or move the session work out of the plugin (an executor gives only data directories, ctx.store and ctx.env)."},
	{ExecutorUnavailable, SeverityWarning, "An executor of a plugin's remote tools could not be reached, lost a call, or refused its bundle; calls go to the plugin's other executors, and answer tool_unavailable when none is left.", "Start the executor or fix what the message names; the host tries it again on the next call."},
	{RemoteBundleRefused, SeverityError, "An executor refused a plugin bundle: its operator has not granted the fingerprint, the archive does not hash to its name, or the plugin is not remote-eligible; the plugin's remote tools answer tool_unavailable.", "The executor's operator grants the same bundle in the executor's own home (its trust file), or fix what the message names."},
}

var codeIndex = func() map[Code]CodeInfo {
	m := make(map[Code]CodeInfo, len(Catalogue))
	for _, c := range Catalogue {
		m[c.Code] = c
	}
	return m
}()

// Info returns the catalogue entry of c; ok is false for an unknown code.
func (c Code) Info() (CodeInfo, bool) {
	info, ok := codeIndex[c]
	return info, ok
}

// Severity returns the catalogue severity of c (error for an unknown code).
func (c Code) Severity() Severity {
	if info, ok := codeIndex[c]; ok {
		return info.Severity
	}
	return SeverityError
}
