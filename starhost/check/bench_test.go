package check_test

// The cost of `crystal-star check` on 100 generated plugins, against raw
// parsing (go.starlark.net/syntax) of the same files. docs/performance.md
// ("crystal-star check") records the figures and the command.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/starhost/check"
)

// benchPluginCount is the size of the generated corpus.
const benchPluginCount = 100

// benchPluginSource is one generated plugin's entry file (about 60 lines):
// a tool with a schema, a command, a placeholder and a status field, with
// helpers loaded from lib/text.star. %[1]d makes every name unique.
const benchPluginSource = `"""Generated plugin %[1]d for the check benchmark."""

load("lib/text.star", "normalize", "word_count")

LIMIT = 12

def summarize(ctx, args):
    text = normalize(args["text"])
    if not text:
        return error("empty_text", "text is empty")
    limit = args.get("max_words", LIMIT)
    words = text.split(" ")
    summary = " ".join(words[:limit])
    if len(words) > limit:
        summary += " ..."
    return {
        "summary": summary,
        "words": word_count(text),
        "truncated": len(words) > limit,
    }

def triage(ctx, inv):
    if not inv.args.strip():
        ctx.out.fail("usage: /triage_%[1]d QUEUE")
        return None
    return "Summarize the review queue %%s." %% inv.args

def model_name(ctx):
    return ctx.model or "the session model"

contribute(
    tools = [
        tool(
            name = "summary_%[1]d",
            description = "Summarizes review text.",
            parameters = {
                "type": "object",
                "properties": {
                    "text": {"type": "string"},
                    "max_words": {"type": "integer", "minimum": 1, "maximum": 100},
                },
                "required": ["text"],
                "additionalProperties": False,
            },
            catalogs = "plan_and_work",
            read_only = True,
            run = summarize,
        ),
    ],
    commands = [command(name = "triage_%[1]d", aliases = ["t%[1]d"], run = triage)],
    placeholders = [placeholder(name = "model_%[1]d", resolve = model_name)],
    status_fields = [status_field(name = "reviews-%[1]d", description = "Reviews done")],
)
`

const benchLibSource = `"""Text helpers."""

def normalize(text):
    """Collapses runs of whitespace and trims the ends."""
    return " ".join(text.split())

def word_count(text):
    return len(text.split())
`

// writeBenchPlugins writes n plugins below dir and returns their .star files.
func writeBenchPlugins(tb testing.TB, dir string, n int) map[string][]byte {
	files := map[string][]byte{}
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("p%03d", i))
		write := func(name, text string) {
			full := filepath.Join(p, name)
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				tb.Fatal(err)
			}
			if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
				tb.Fatal(err)
			}
			if strings.HasSuffix(name, ".star") {
				files[full] = []byte(text)
			}
		}
		write("plugin.toml", fmt.Sprintf("id = \"acme.gen%03d\"\nversion = \"1.0.0\"\n", i))
		write("plugin.star", fmt.Sprintf(benchPluginSource, i))
		write("lib/text.star", benchLibSource)
	}
	return files
}

func benchCheck(tb testing.TB, dir string) {
	r, err := check.Plugins(context.Background(), check.Options{Paths: []string{dir}, Options: checkTestOptions(tb, dir)})
	if err != nil {
		tb.Fatal(err)
	}
	if len(r.Plugins) != benchPluginCount || len(r.Diagnostics) > 0 {
		tb.Fatalf("check: %d plugins, diagnostics %v", len(r.Plugins), r.Diagnostics)
	}
}

func benchParse(tb testing.TB, files map[string][]byte) {
	for name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := builtins.Dialect.Parse(name, src, 0); err != nil {
			tb.Fatal(err)
		}
	}
}

// TestCheckGeneratedPluginsAreClean proves the benchmark's corpus is
// clean, so the benchmark measures a full check and not an early failure.
func TestCheckGeneratedPluginsAreClean(t *testing.T) {
	dir := t.TempDir()
	writeBenchPlugins(t, dir, benchPluginCount)
	benchCheck(t, dir)
}

// BenchmarkCheck100Plugins is `crystal-star check` on 100 plugins: discovery,
// manifests, bundle snapshots, compile, dry run, staging, cross-plugin rules
// and the style warnings.
func BenchmarkCheck100Plugins(b *testing.B) {
	dir := b.TempDir()
	writeBenchPlugins(b, dir, benchPluginCount)
	for b.Loop() {
		benchCheck(b, dir)
	}
}

// BenchmarkParse100Plugins reads and parses the same 200 .star files with
// go.starlark.net/syntax and nothing else.
func BenchmarkParse100Plugins(b *testing.B) {
	files := writeBenchPlugins(b, b.TempDir(), benchPluginCount)
	for b.Loop() {
		benchParse(b, files)
	}
}

// BenchmarkCheck100PluginsRatio runs check and raw parsing alternately and
// reports check/parse, so the ratio comes from one run on one machine. On a
// shared machine the wall-clock ratio swings with the other processes'
// load; the CPU time spent (getrusage, all threads, GC included) does not,
// so the ratio is also reported on CPU time. Check's dry runs execute in a
// worker process, which Check ends before it returns: its CPU time is
// counted (RUSAGE_CHILDREN) and also reported on its own.
func BenchmarkCheck100PluginsRatio(b *testing.B) {
	dir := b.TempDir()
	files := writeBenchPlugins(b, dir, benchPluginCount)
	var check, parse, checkCPU, parseCPU, workerCPU time.Duration
	for b.Loop() {
		start, startCPU, startChild := time.Now(), processCPU(syscall.RUSAGE_SELF), processCPU(syscall.RUSAGE_CHILDREN)
		benchCheck(b, dir)
		mid, midCPU, midChild := time.Now(), processCPU(syscall.RUSAGE_SELF), processCPU(syscall.RUSAGE_CHILDREN)
		benchParse(b, files)
		check, parse = check+mid.Sub(start), parse+time.Since(mid)
		workerCPU += midChild - startChild
		checkCPU, parseCPU = checkCPU+midCPU-startCPU+midChild-startChild, parseCPU+processCPU(syscall.RUSAGE_SELF)-midCPU
	}
	b.ReportMetric(float64(check.Milliseconds())/float64(b.N), "check-ms/op")
	b.ReportMetric(float64(parse.Microseconds())/1000/float64(b.N), "parse-ms/op")
	b.ReportMetric(float64(check)/float64(parse), "check/parse")
	b.ReportMetric(float64(checkCPU)/float64(parseCPU), "cpu-check/parse")
	b.ReportMetric(float64(workerCPU.Microseconds())/1000/float64(b.N), "worker-cpu-ms/op")
	b.ReportMetric(float64((checkCPU-workerCPU).Microseconds())/1000/float64(b.N), "host-cpu-ms/op")
	b.ReportMetric(float64(parseCPU.Microseconds())/1000/float64(b.N), "parse-cpu-ms/op")
}

// processCPU is the user and system CPU time this process (RUSAGE_SELF)
// or its ended children (RUSAGE_CHILDREN) have used.
func processCPU(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkH29_2_DevConsoleCheckOnePlugin is the check the dev console
// runs after each load of a dev plugin: one generated plugin, static
// (compile, static checks, style warnings; no dry run, no worker).
func BenchmarkH29_2_DevConsoleCheckOnePlugin(b *testing.B) {
	dir := b.TempDir()
	writeBenchPlugins(b, dir, 1)
	opts := check.Options{Paths: []string{filepath.Join(dir, "p000")}, Options: checkTestOptions(b, dir), Static: true}
	for b.Loop() {
		r, err := check.Plugins(context.Background(), opts)
		if err != nil || len(r.Diagnostics) > 0 {
			b.Fatalf("check: %v %v", err, r.Diagnostics)
		}
	}
}
