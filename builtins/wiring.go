package builtins

import (
	"slices"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/crystal-star/crystal-star/contrib"
)

// This file is the activator's wiring, whole: every name a plugin module
// sees, every keyword of contribute(), every ctx attribute and what each
// attach stage does. The behaviour lives in the feature files (status.go,
// data.go, models.go, points.go, ...); a new predeclared builtin, ctx field
// or contribution kind is one row here (CONTRIBUTING.md). No init function
// adds to these tables, so what a plugin sees is readable in one place.

// predeclaredTable lists what Predeclared returns, name by name (CC1). The
// names generated from contrib's point table — a constructor per point and
// the TARGET_/ORDER_ constants of its named defaults — are the one
// generated row, pointPredeclared.
var predeclaredTable = []struct {
	name  string
	value starlark.Value
}{
	{"contribute", starlark.NewBuiltin("contribute", contribute)},
	// Constructors, one per contribution kind.
	{"tool", starlark.NewBuiltin("tool", newTool)},
	{"command", starlark.NewBuiltin("command", newCommand)},
	{"placeholder", starlark.NewBuiltin("placeholder", newPlaceholder)},
	{"status_field", starlark.NewBuiltin("status_field", newStatusField)},
	{"classifier", starlark.NewBuiltin("classifier", newClassifier)},
	{"client_factory", starlark.NewBuiltin("client_factory", newClientFactory)},
	{"timer", starlark.NewBuiltin("timer", newTimer)},
	{"hook", starlark.NewBuiltin("hook", newHook)},
	{"raw_hook", starlark.NewBuiltin("raw_hook", newHook)},
	// Result helpers and services.
	{"error", starlark.NewBuiltin("error", newError)},
	{"image", starlark.NewBuiltin("image", newMedia(contrib.PartImage))},
	{"audio", starlark.NewBuiltin("audio", newMedia(contrib.PartAudio))},
	{"resource", starlark.NewBuiltin("resource", newResource)},
	{"deps", starlarkstruct.FromStringDict(starlark.String("deps"), starlark.StringDict{
		"require": starlark.NewBuiltin("deps.require", depsRequire),
	})},
	{"struct", starlark.NewBuiltin("struct", starlarkstruct.Make)},
	{"json", checkedJSON()},
	// Constants of the point table's orders and scopes.
	{"ORDER_FIRST", starlark.MakeInt(contrib.OrderFirst)},
	{"ORDER_LAST", starlark.MakeInt(contrib.OrderLast)},
	{"SCOPE_WORKSPACE", starlark.String(contrib.ScopeWorkspace)},
	{"SCOPE_THREAD", starlark.String(contrib.ScopeThread)},
	// The language's own builtins that walk a value recursively, checked
	// for nesting (nesting.go).
	{"str", checkedUniverse("str")},
	{"repr", checkedUniverse("repr")},
	{"print", checkedUniverse("print")},
	// The language's builtins that size their result from their argument,
	// checked against the memory budget (guard.go).
	{"list", allocGuarded("list", valueSize)},
	{"tuple", allocGuarded("tuple", valueSize)},
	{"sorted", allocGuarded("sorted", valueSize)},
	{"reversed", allocGuarded("reversed", valueSize)},
	{"enumerate", allocGuarded("enumerate", 4*valueSize)},
	{"set", allocGuarded("set", 4*valueSize)},
	{"dict", allocGuarded("dict", 4*valueSize)},
	// Hidden operator guards the compiler puts in front of operands; they
	// are not identifiers, so plugin source cannot name them (guard.go,
	// operands.go). Each generation gets its own, bound to its memory
	// budget (instancePredeclared).
	{repeatName, starlark.NewBuiltin(repeatName, repeatGuard)},
	{nestingName, operandGuards(nil)[nestingName]},
	{concatName, operandGuards(nil)[concatName]},
	{extendName, operandGuards(nil)[extendName]},
}

// predeclared is predeclaredTable and the point table's names, frozen.
var predeclared = func() starlark.StringDict {
	d := pointPredeclared()
	for _, e := range predeclaredTable {
		d[e.name] = e.value
	}
	d.Freeze()
	return d
}()

// contributeLists are the list-valued keywords of contribute(), in the
// order its signature (and so docs/api.md) lists them.
var contributeLists = slices.Concat(
	[]listKind{
		{"tools", "tool", func(inst *instance, e *entry) { stageTool(inst, e, inst.staging) }},
		{"commands", "command", stageCommand},
		{"placeholders", "placeholder", stagePlaceholder},
		{"status_fields", "status_field", func(inst *instance, e *entry) { inst.staging.AddStatusField(e.field) }},
		{"classifiers", "classifier", stageClassifier},
		{"client_factories", "client_factory", stageClientFactory},
	},
	pointLists(),
	[]listKind{
		{"hooks", "hook", stageHook},
		{"raw_hooks", "raw_hook", stageHook},
		{"timers", "timer", stageTimer},
	},
)

// ctxFields are ctx's attributes beyond the facts every ctx has
// (baseCtxAttrs, out, site).
var ctxFields = []ctxField{
	{"ask", askCtx},
	{"data", dataCtx},
	{"env", envCtx},
	{"models", modelsCtx},
	{"thread", threadCtx},
	{"contributions", contributionsCtx},
	{"progress", progressCtx},
	{"session", sessionCtx},
	{"review", reviewCtx},
	{"status", statusCtx},
	{"store", storeCtx},
}

// attachPreparers decide, per stage, whether the callback runs for this
// generation (a capability, an accepted status field) and which arguments
// follow ctx. A stage without one runs with ctx alone.
var attachPreparers = map[contrib.AttachStage]func(inst *instance, c *callCtx) ([]starlark.Value, bool){
	contrib.AttachClients:  prepareClients,
	contrib.AttachDataDirs: prepareDataDirs,
	contrib.AttachStatus:   prepareStatus,
}

// attachAlways holds what a stage does for every generation, whether or not
// the plugin has a callback for it (CC29: the host creates the data
// directories first).
var attachAlways = map[contrib.AttachStage]func(inst *instance) error{
	contrib.AttachDataDirs: createDataDirs,
}

// attachFailed holds what a stage does when its callback fails (CC18: a
// failed attach_status closes the sink).
var attachFailed = map[contrib.AttachStage]func(inst *instance){
	contrib.AttachStatus: retireStatus,
}

// activated runs once per generation after its module executed successfully.
var activated = []func(inst *instance){
	noteModelAccess, // CC24
}
