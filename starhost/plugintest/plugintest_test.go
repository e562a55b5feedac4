package plugintest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/internal/testkit"
)

func TestLookupJSON(t *testing.T) {
	var v any
	doc := `{"tools": [{"name": "a", "n": 1}, {"name": "greet", "n": 2, "req": ["name"]}], "ok": true, "x": null}`
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want, err string }{
		{".tools[name=greet].req[0]", "name", ""},
		{"tools[1].n", "2", ""},
		{".tools[-1].name", "greet", ""},
		{".tools[n=1].name", "a", ""},
		{".ok", "true", ""},
		{".x", "null", ""},
		{".", `{"ok":true,"tools":[{"n":1,"name":"a"},{"n":2,"name":"greet","req":["name"]}],"x":null}`, ""},
		{".tools[2]", "", ".tools: index 2 is out of range (2 elements)"},
		{".tools[name=zed]", "", ".tools: no element has name=zed"},
		{".ok.y", "", ".ok: is a boolean, not an object with member \"y\""},
		{".missing", "", ".: has no member \"missing\""},
		{".tools[x", "", `path ".tools[x": [ without ]`},
		{".tools[abc]", "", `path ".tools[abc]": [abc] is neither an index nor key=value`},
		{"a..b", "", `path "a..b": empty member name`},
	} {
		got, err := LookupJSON(v, c.path)
		switch {
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("LookupJSON(%q) error = %v, want %q", c.path, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("LookupJSON(%q): %v", c.path, err)
		case c.err == "" && RenderJSON(got) != c.want:
			t.Errorf("LookupJSON(%q) = %s, want %s", c.path, RenderJSON(got), c.want)
		}
	}
}

func chat(t *testing.T, url, model, text string) (int, string) {
	t.Helper()
	body := fmt.Sprintf(`{"model": %q, "messages": [{"role": "user", "content": %q}]}`, model, text)
	resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

// TestFakeModelScriptedReplies: replies are used in order, then every
// request fails with a message saying so; every request is recorded.
func TestFakeModelScriptedReplies(t *testing.T) {
	m := NewFakeModel(ParseReplies("first\n---\n\nsecond\nline\n")...)
	defer m.Close()
	log := filepath.Join(t.TempDir(), "requests.log")
	m.LogTo(log)
	for _, want := range []string{`"content":"first"`, `"content":"second\nline"`} {
		if code, body := chat(t, m.URL, "fake", "hi"); code != 200 || !strings.Contains(body, want) {
			t.Fatalf("got %d %s, want %s", code, body, want)
		}
	}
	if code, body := chat(t, m.URL, "fake", "hi"); code != 500 || !strings.Contains(body, "no scripted reply left (2 given)") {
		t.Fatalf("third request: %d %s", code, body)
	}
	if n := len(m.Requests()); n != 3 {
		t.Fatalf("%d requests recorded, want 3", n)
	}
	data, _ := os.ReadFile(log)
	if got := strings.Count(string(data), "POST /v1/chat/completions"); got != 3 {
		t.Fatalf("log holds %d requests:\n%s", got, data)
	}
}

// TestFakeModelWriteConfig: providers.json names the server and config.toml
// selects it, keeping the other settings and tables.
func TestFakeModelWriteConfig(t *testing.T) {
	m := NewFakeModel()
	defer m.Close()
	home := t.TempDir()
	old := "model = \"other/x\"\nstatus_line = [\"model\"]\n[table]\nmodel = \"kept\"\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := m.WriteConfig(home); err != nil {
		t.Fatal(err)
	}
	cfg, _ := os.ReadFile(filepath.Join(home, "config.toml"))
	want := "model = \"fake/fake\"\nstatus_line = [\"model\"]\n[table]\nmodel = \"kept\"\n"
	if string(cfg) != want {
		t.Fatalf("config.toml:\n%s\nwant:\n%s", cfg, want)
	}
	prov, _ := os.ReadFile(filepath.Join(home, "providers.json"))
	if !strings.Contains(string(prov), `"endpoint": "`+m.URL+`/v1"`) {
		t.Fatalf("providers.json:\n%s", prov)
	}
}

// fakeTB records a Fatalf instead of stopping the test.
type fakeTB struct {
	*testing.T
	fatal string
}

func (f *fakeTB) Fatalf(format string, args ...any) { f.fatal = fmt.Sprintf(format, args...) }

// TestNewHostFailsWithDiagnostics: a plugin that does not activate fails
// the test with its state and diagnostics; one whose status field is
// rejected fails with the error.
func TestNewHostFailsWithDiagnostics(t *testing.T) {
	tb := &fakeTB{T: t}
	if h := NewHost(tb, "testdata/broken", Options{}); h != nil {
		t.Fatal("NewHost returned a host for a faulted plugin")
	}
	if !strings.Contains(tb.fatal, "plugin acme.broken did not activate: it is faulted") ||
		!strings.Contains(tb.fatal, "testdata/broken/plugin.star:3:15: error:") {
		t.Fatalf("Fatalf message:\n%s", tb.fatal)
	}
	dir := testkit.Plugin{ID: "acme.f", Version: "0.1.0", Source: `contribute(status_fields = [status_field(name = "a_b", description = "x")])`}.Write(t, t.TempDir())
	tb = &fakeTB{T: t}
	NewHost(tb, dir, Options{})
	if !strings.Contains(tb.fatal, "plugin acme.f has errors:") || !strings.Contains(tb.fatal, "StatusFieldRejected") {
		t.Fatalf("Fatalf message:\n%s", tb.fatal)
	}
}

// TestNewHostIsolated: the plugin is a copy, the home and workspace are
// temporary, and the test's edits never reach the plugin's own files.
func TestNewHostIsolated(t *testing.T) {
	h := NewHost(t, "testdata/counter", Options{Config: `status_line = []`})
	if err := h.WriteFile("plugin.star", `contribute()`); err != nil {
		t.Fatal(err)
	}
	if err := h.Reload(); err != nil {
		t.Fatal(err)
	}
	if res := h.Call("count", ""); res.OK() {
		t.Fatal("the reloaded plugin still has its tool")
	}
	src, _ := os.ReadFile("testdata/counter/plugin.star")
	if !strings.Contains(string(src), `"one"`) {
		t.Fatal("the test's edit reached the plugin's own directory")
	}
	if !strings.HasPrefix(h.Dir, filepath.Dir(h.Home)) || h.Session.Facts().Workspace != h.Workspace {
		t.Fatalf("dirs: %s %s %s", h.Dir, h.Home, h.Workspace)
	}
}
