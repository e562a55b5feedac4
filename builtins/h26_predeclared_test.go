package builtins

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/crystal-star/crystal-star/contrib"
)

// TestH26_5_PredeclaredCopiedOnlyForBoundGuards: a bundle whose files use
// no operator guard runs with the shared predeclared names (no copy per
// generation); one where any file — a loaded one too — uses a guard bound
// to the memory budget is marked, and that guard still refuses.
func TestH26_5_PredeclaredCopiedOnlyForBoundGuards(t *testing.T) {
	const lib = "def grow(ctx, args):\n    l = [0]\n    for i in range(40):\n        l += l\n    return str(len(l))\n"
	const entry = "load(\"lib.star\", \"grow\")\n\ndef echo(ctx, args):\n    return args[\"text\"]\n\n" +
		"contribute(tools = [tool(name = \"grow\", catalogs = \"work\", run = grow), tool(name = \"echo\", catalogs = \"work\", run = echo)])\n"
	plain := contrib.ActivationRequest{Plugin: "acme.plain", Generation: "g1", Source: contrib.SourceDev,
		Bundle: fstest.MapFS{"plugin.star": {Data: []byte("def echo(ctx, args):\n    return args[\"text\"]\n\ncontribute(tools = [tool(name = \"echo\", catalogs = \"work\", run = echo)])\n")}},
		Entry:  "plugin.star", Services: &noteLog{}}
	guarded := plain
	guarded.Plugin = "acme.guarded"
	guarded.Bundle = fstest.MapFS{"plugin.star": {Data: []byte(entry)}, "lib.star": {Data: []byte(lib)}}

	a := NewActivator(Options{MemoryLimit: 64 << 20})
	if c, err := a.compileBundle(plain); err != nil || c.operandGuards {
		t.Errorf("a bundle without + or %%: operandGuards = %v (%v), want false", c != nil && c.operandGuards, err)
	}
	c, err := a.compileBundle(guarded)
	if err != nil || !c.operandGuards {
		t.Fatalf("a bundle whose loaded file uses +=: operandGuards false (%v)", err)
	}
	inst, err := a.Activate(context.Background(), guarded)
	if err != nil {
		t.Fatal(err)
	}
	res := inst.Set().Tools[0].Run.Run(context.Background(), map[string]any{})
	if res.Err == nil || !strings.HasPrefix(res.Err.Message, "memory_limit 64MiB exceeded at lib.star:4:") {
		t.Errorf("result %+v; want memory_limit 64MiB exceeded at lib.star:4:…", res.Err)
	}
	inst, err = a.Activate(context.Background(), plain)
	if err != nil {
		t.Fatal(err)
	}
	if res := inst.Set().Tools[0].Run.Run(context.Background(), map[string]any{"text": "hi"}); res.Err != nil {
		t.Errorf("plain echo: %+v", res.Err)
	}
}
