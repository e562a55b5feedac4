package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// heavy are the modules and packages starhost must not link (issue 26
// point 1): the provider SDKs and what they bring (gRPC, protobuf,
// opencensus, otel, Google auth), buildifier, the network stack, and this
// module's own opt-in packages — the model adapters, their transport and
// the formatter — which a program links only by importing them.
var heavy = []string{
	"github.com/openai/", "github.com/anthropics/", "google.golang.org/genai", "google.golang.org/grpc",
	"google.golang.org/protobuf", "github.com/golang/protobuf", "go.opencensus.io", "go.opentelemetry.io",
	"cloud.google.com/", "github.com/bazelbuild/buildtools",
	"golang.org/x/text/", "github.com/santhosh-tekuri/",
	"net/http", "crypto/tls", "crypto/x509",
	"github.com/crystal-star/crystal-star/starhost/models/",
	"github.com/crystal-star/crystal-star/starhost/format",
}

// The bars of the minimal embedder against the raw go.starlark.net
// program: at most 3× its size and the 150 packages. This program
// links 150; beyond the raw program's 91 (with its shared rawrun package)
// are this module's own 13 packages, crypto/sha256 (trust fingerprints:
// 30 packages of the FIPS module), toml, fsnotify, semver, and
// google/jsonschema-go with what it brings (math/big, net/url, log/slog)
// for tool schemas — see docs/performance.md. golang.org/x/text (13
// packages, pulled by the validator used before) is in heavy: it must not
// come back.
const (
	maxSizeRatio = 3.0
	maxDeps      = 150
)

func goList(t *testing.T, pkgs ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list", "-deps"}, pkgs...)...).Output()
	if err != nil {
		t.Fatalf("go list -deps %v: %v", pkgs, err)
	}
	return strings.Fields(string(out))
}

// TestH26_1_CoreLinksNoSDK: starhost and everything it imports link no
// provider SDK, gRPC, protobuf, opencensus, otel, buildifier or net/http.
func TestH26_1_CoreLinksNoSDK(t *testing.T) {
	for _, p := range goList(t, "github.com/crystal-star/crystal-star/starhost", "github.com/crystal-star/crystal-star/internal/embedmin") {
		for _, h := range heavy {
			if p == h || strings.HasPrefix(p, h) && (strings.HasSuffix(h, "/") || strings.HasPrefix(p, h+"/")) {
				t.Errorf("starhost links %s (%s)", p, h)
			}
		}
	}
}

// TestH26_1_CLILinksEveryAdapter: the CLI registers all six protocols and
// formats, so it links what the core does not.
func TestH26_1_CLILinksEveryAdapter(t *testing.T) {
	deps := strings.Join(goList(t, "github.com/crystal-star/crystal-star/cmd/crystal-star"), "\n") + "\n"
	for _, p := range []string{"openai", "responses", "deepseek", "anthropic", "gemini", "ollama", "modelhttp"} {
		if !strings.Contains(deps, "github.com/crystal-star/crystal-star/starhost/models/"+p+"\n") {
			t.Errorf("the CLI does not link starhost/models/%s", p)
		}
	}
	if !strings.Contains(deps, "github.com/crystal-star/crystal-star/starhost/format\n") {
		t.Error("the CLI does not link starhost/format")
	}
}

// TestH26_1_MinimalEmbedder builds this program and the raw
// go.starlark.net one, and checks the bars: size at most 3× raw, at most
// maxDeps packages, no goroutine started by a package initializer, the
// same answer; and that a built-in protocol whose adapter is not linked is
// a ProviderAdapterMissing error naming the package to import.
func TestH26_1_MinimalEmbedder(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two programs")
	}
	dir := t.TempDir()
	bin, raw := filepath.Join(dir, "embedmin"), filepath.Join(dir, "raw")
	for out, pkg := range map[string]string{bin: ".", raw: "./raw"} {
		if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, b)
		}
	}
	size := func(p string) float64 {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return float64(st.Size())
	}
	if r := size(bin) / size(raw); r > maxSizeRatio {
		t.Errorf("embedmin is %.0f bytes, %.2f× raw (%.0f); the bar is %.0f×", size(bin), r, size(raw), maxSizeRatio)
	}
	if n := len(goList(t, "github.com/crystal-star/crystal-star/internal/embedmin")); n > maxDeps {
		t.Errorf("embedmin links %d packages; the bar is %d", n, maxDeps)
	}

	plugin := filepath.Join(dir, "plugin")
	write(t, filepath.Join(plugin, "plugin.toml"), "id = \"acme.echo\"\nversion = \"1.0.0\"\n")
	write(t, filepath.Join(plugin, "plugin.star"), `def echo(ctx, args):
    return "echo: " + args["text"]

contribute(tools = [tool(name = "echo", catalogs = "work", run = echo,
    parameters = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})])
`)
	run := func(prog string, env ...string) (string, string) {
		cmd := exec.Command(prog, plugin, "echo", `{"text": "hi"}`)
		cmd.Env = append(os.Environ(), env...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s", prog, err, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	if got, _ := run(bin, "EMBEDMIN_GOROUTINES=1"); got != "goroutines at main: 1\necho: hi\n" {
		t.Errorf("embedmin said %q: a package initializer started a goroutine, or the call failed", got)
	}
	if got, _ := run(raw); got != "echo: hi\n" {
		t.Errorf("raw said %q", got)
	}

	home := filepath.Join(dir, "home")
	write(t, filepath.Join(home, "providers.json"), `{"providers": [{"name": "claude", "protocol": "anthropic",
  "endpoint": "http://127.0.0.1:9", "models": [{"name": "sonnet"}]}]}`)
	write(t, filepath.Join(home, "config.toml"), "model = \"claude/sonnet\"\n")
	_, stderr := run(bin, "EMBEDMIN_HOME="+home)
	want := `providers.json:1:47: error: provider claude: protocol "anthropic" has no adapter in this program; its models cannot be called [ProviderAdapterMissing]; import _ "github.com/crystal-star/crystal-star/starhost/models/anthropic" in the program that embeds starhost`
	if !strings.Contains(stderr, want) {
		t.Errorf("no ProviderAdapterMissing note naming the package; stderr:\n%s", stderr)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
