package starhost_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	starjson "go.starlark.net/lib/json"
	"go.starlark.net/starlark"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/starhost"
)

// guardsSource is the loop-heavy workload of issue 26 point 4: tools whose
// time is spent in the operators the in-process guards watch (`+`, `+=`,
// `*`, `%` on a literal format), beside the trivial echo.
const guardsSource = `
def loop_sum(ctx, args):
    n = 0
    for i in range(args["n"]):
        n += i
    return n

def string_build(ctx, args):
    out = ""
    sep = ","
    for i in range(args["n"]):
        out += "%d" % i
        out = out + sep
    return len(out)

def list_append(ctx, args):
    out = []
    acc = []
    for i in range(args["n"]):
        out.append(i * i)
        acc += [i]
    return len(out) + len(acc)

def echo(ctx, args):
    return args["text"]

contribute(tools = [
    tool(name = "loop_sum", catalogs = "work", run = loop_sum),
    tool(name = "string_build", catalogs = "work", run = string_build),
    tool(name = "list_append", catalogs = "work", run = list_append),
    tool(name = "echo", catalogs = "work", run = echo,
         parameters = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
])
`

// guardsHost is a host running guardsSource as plugin bench.guards.
func guardsHost(tb testing.TB) *starhost.Host {
	dir := filepath.Join(tb.TempDir(), "guards")
	testkit.Plugin{ID: "bench.guards", Source: guardsSource}.Write(tb, dir)
	return startHost(tb, dir)
}

// rawJSONPair compares ToolSnapshot.Invoke of tool with what a program
// using go.starlark.net alone does for the same call: decode the JSON
// arguments with go.starlark.net's own json.decode, call the same function
// (compiled by go.starlark.net, without the host's guards, predeclaring only
// the language's universe), and encode a non-string result with json.encode.
// With goJSON the arguments are decoded as internal/scalegen/rawstar does
// instead: encoding/json into any, then builtins.FromJSON.
func rawJSONPair(b *testing.B, h *starhost.Host, tool string, args map[string]any, goJSON ...bool) pair {
	snap := h.Session().Thread("").Tools(context.Background(), starhost.Work)
	raw, err := json.Marshal(args)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if res := snap.Invoke(ctx, tool, raw); res.Error != nil {
		b.Fatalf("%s: %v", tool, res.Error)
	}
	noop := starlark.NewBuiltin("noop", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
		return starlark.None, nil
	})
	th := &starlark.Thread{Name: "raw"}
	globals, err := starlark.ExecFileOptions(&builtins.Dialect, th, "plugin.star", guardsSource,
		starlark.StringDict{"tool": noop, "contribute": noop})
	if err != nil {
		b.Fatal(err)
	}
	globals.Freeze()
	fn := globals[tool]
	decode, encode := starjson.Module.Members["decode"], starjson.Module.Members["encode"]
	text := starlark.Tuple{starlark.String(raw)}
	return pair{
		host: func(tb testing.TB) {
			if res := snap.Invoke(ctx, tool, raw); res.Error != nil {
				tb.Fatal(res.Error)
			}
		},
		raw: func(tb testing.TB) {
			var v starlark.Value
			if len(goJSON) > 0 && goJSON[0] {
				var a any
				if err := json.Unmarshal(raw, &a); err != nil {
					tb.Fatal(err)
				}
				v = builtins.FromJSON(a)
			} else if v, err = starlark.Call(th, decode, text, nil); err != nil {
				tb.Fatal(err)
			}
			out, err := starlark.Call(th, fn, starlark.Tuple{starlark.None, v}, nil)
			if err != nil {
				tb.Fatal(err)
			}
			if _, ok := out.(starlark.String); !ok {
				if _, err := starlark.Call(th, encode, starlark.Tuple{out}, nil); err != nil {
					tb.Fatal(err)
				}
			}
		},
	}
}

// BenchmarkH26_4_Guards is issue 26 point 4: loop-heavy tools in process
// (the in-process guards on, the defaults) against raw go.starlark.net with
// its JSON decoding, in one run; the ratio sub-benchmark interleaves them.
// Targets: at most 1.5× for LoopSum, StringBuild, ListAppend and Trivial.
func BenchmarkH26_4_Guards(b *testing.B) {
	h := guardsHost(b)
	b.Run("LoopSum", rawJSONPair(b, h, "loop_sum", map[string]any{"n": 2000}).run)
	b.Run("StringBuild", rawJSONPair(b, h, "string_build", map[string]any{"n": 500}).run)
	b.Run("ListAppend", rawJSONPair(b, h, "list_append", map[string]any{"n": 1000}).run)
	b.Run("Trivial", rawJSONPair(b, h, "echo", map[string]any{"text": "hello"}).run)
	b.Run("TrivialGoJSON", rawJSONPair(b, h, "echo", map[string]any{"text": "hello"}, true).run)
}
