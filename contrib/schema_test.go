package contrib

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CC1, DC23: a tool's parameters are compiled from the plugin's value alone.
// A $ref outside the schema is refused — it never reads a file (absolute, or
// relative to the host's working directory) or the network — and messages
// never carry the host's paths.
func TestCC1_SchemaRefStaysInsideTheSchema(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.json")
	if err := os.WriteFile(secret, []byte(`{"type":"object"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, ref := range []string{"file://" + filepath.ToSlash(secret), "secret.json", "https://example.invalid/s.json"} {
		raw, _ := json.Marshal(map[string]any{"$ref": ref})
		_, err := CompileSchema(raw)
		if err == nil {
			t.Errorf("$ref %q compiled; want it refused", ref)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "outside the schema") || strings.Contains(msg, "plugin:///") {
			t.Errorf("$ref %q: error %q; want it named as outside the schema, without the internal base URL", ref, msg)
		}
	}
	inner := `{"$defs":{"n":{"type":"integer"}},"type":"object","properties":{"n":{"$ref":"#/$defs/n"}}}`
	sch, err := CompileSchema(json.RawMessage(inner))
	if err != nil {
		t.Fatalf("internal $ref: %v", err)
	}
	if err := sch.Validate(map[string]any{"n": "x"}); err == nil {
		t.Error("internal $ref does not validate")
	}
	draft7 := `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`
	if _, err := CompileSchema(json.RawMessage(draft7)); err != nil {
		t.Errorf("a built-in meta-schema is refused: %v", err)
	}
}

// An invalid schema is reported at the failing places of the schema itself,
// not as a meta-schema dump with a file URL.
func TestCC5_InvalidSchemaNamesItsPath(t *testing.T) {
	_, err := CompileSchema(json.RawMessage(`{"properties":{"n":{"minimum":"one"}}}`))
	if err == nil {
		t.Fatal("invalid schema compiled")
	}
	want := "not a valid JSON Schema: /properties/n/minimum: got string, want number"
	if err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
}
