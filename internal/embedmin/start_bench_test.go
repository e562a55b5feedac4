package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/internal/scalegen"
)

// build builds each package into dir and returns the binaries by package.
func build(b *testing.B, dir string, pkgs ...string) map[string]string {
	b.Helper()
	out := map[string]string{}
	for _, p := range pkgs {
		name := filepath.Base(p)
		if p == "." {
			name = "embedmin"
		}
		bin := filepath.Join(dir, name)
		if msg, err := exec.Command("go", "build", "-o", bin, p).CombinedOutput(); err != nil {
			b.Fatalf("go build %s: %v\n%s", p, err, msg)
		}
		out[p] = bin
	}
	return out
}

// cpu runs the command and returns the CPU it used (user + system).
func cpu(b *testing.B, name string, args ...string) time.Duration {
	b.Helper()
	cmd := exec.Command(name, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// BenchmarkH26_5_StartCPU measures the CPU of one start, interleaved run
// by run with the raw go.starlark.net program (internal/embedmin/raw:
// read, execute and call one plugin): `crystal-star version`, and
// embedmin's New, Start, one Invoke and Close over the same plugin. It
// reports each in ms of CPU per run and their ratios to raw (issue 26
// point 5: version at most 5× raw).
//
//	go test ./internal/embedmin -run '^$' -bench H26_5_StartCPU -benchtime 20x
func BenchmarkH26_5_StartCPU(b *testing.B) {
	dir := b.TempDir()
	bins := build(b, dir, "github.com/crystal-star/crystal-star/cmd/crystal-star", ".", "./raw")
	plugin := filepath.Join(dir, "plugin")
	if err := scalegen.Write(plugin, 1); err != nil {
		b.Fatal(err)
	}
	one := filepath.Join(plugin, scalegen.Dir(0))
	args := []string{one, scalegen.Tool(0), `{"text": "hi"}`}
	var raw, version, embed time.Duration
	for b.Loop() {
		raw += cpu(b, bins["./raw"], args...)
		version += cpu(b, bins["github.com/crystal-star/crystal-star/cmd/crystal-star"], "version")
		embed += cpu(b, bins["."], args...)
	}
	n := float64(b.N)
	b.ReportMetric(float64(raw.Microseconds())/1e3/n, "raw-cpu-ms")
	b.ReportMetric(float64(version.Microseconds())/1e3/n, "version-cpu-ms")
	b.ReportMetric(float64(embed.Microseconds())/1e3/n, "embedmin-cpu-ms")
	b.ReportMetric(float64(version)/float64(raw), "version/raw")
	b.ReportMetric(float64(embed)/float64(raw), "embedmin/raw")
}

// BenchmarkH26_5_CallCPU measures the CPU of a one-shot
// `crystal-star --dev DIR call TOOL JSON` over 1,000 one-tool plugins
// (CRYSTAL_SCALE_N overrides), interleaved with rawstar, the raw
// go.starlark.net program that executes the same files and calls the same
// tool (internal/scalegen). Issue 26 point 5: at most 2× raw in CPU.
//
//	go test ./internal/embedmin -run '^$' -bench H26_5_CallCPU -benchtime 5x
func BenchmarkH26_5_CallCPU(b *testing.B) {
	n := 1000
	if v := os.Getenv("CRYSTAL_SCALE_N"); v != "" {
		if _, err := fmt.Sscan(v, &n); err != nil {
			b.Fatal(err)
		}
	}
	dir := b.TempDir()
	bins := build(b, dir, "github.com/crystal-star/crystal-star/cmd/crystal-star", "github.com/crystal-star/crystal-star/internal/scalegen/rawstar")
	root := filepath.Join(dir, "plugins")
	if err := scalegen.Write(root, n); err != nil {
		b.Fatal(err)
	}
	home, ws := filepath.Join(dir, "home"), filepath.Join(dir, "ws")
	for _, d := range []string{home, ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	tool, args := scalegen.Tool(n/2), `{"text": "hello"}`
	var raw, call time.Duration
	for b.Loop() {
		raw += cpu(b, bins["github.com/crystal-star/crystal-star/internal/scalegen/rawstar"], root, tool, args)
		call += cpu(b, bins["github.com/crystal-star/crystal-star/cmd/crystal-star"], "--home", home, "--workspace", ws, "--dev", root, "call", tool, args)
	}
	N := float64(b.N)
	b.ReportMetric(float64(raw.Microseconds())/1e3/N, "raw-cpu-ms")
	b.ReportMetric(float64(call.Microseconds())/1e3/N, "call-cpu-ms")
	b.ReportMetric(float64(call)/float64(raw), "call/raw")
}
