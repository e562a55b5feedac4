package lifecycle

import (
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/contrib"
)

func TestAT4_ManifestStrict(t *testing.T) {
	const file = "plugins/acme/plugin.toml"
	tests := []struct {
		name    string
		toml    string
		code    contrib.Code
		line    int
		col     int    // 0: any
		message string // a fragment
		one     bool   // the only diagnostic
	}{
		{"unknown key", "id = \"acme.x\"\nversion = \"1.0.0\"\n  colour = \"red\"\n",
			contrib.ManifestUnknownKey, 3, 3, `"colour"`, false},
		{"bad id", "version = \"1.0.0\"\nid = \"Acme\"\n",
			contrib.ManifestInvalid, 2, 1, `id "Acme"`, false},
		{"missing id", "version = \"1.0.0\"\n",
			contrib.ManifestInvalid, 1, 1, "id is missing", false},
		{"short version", "id = \"acme.x\"\nversion = \"1.0\"\n",
			contrib.ManifestInvalid, 2, 1, `version "1.0"`, false},
		{"prerelease version", "id = \"acme.x\"\nversion = \"1.0.0-beta\"\n",
			contrib.ManifestInvalid, 2, 1, "MAJOR.MINOR.PATCH", false},
		{"v-prefixed version", "id = \"acme.x\"\nversion = \"v1.0.0\"\n",
			contrib.ManifestInvalid, 2, 1, "MAJOR.MINOR.PATCH", false},
		{"unknown capability", "id = \"acme.x\"\nversion = \"1.0.0\"\ncapabilities = [\"data\", \"network\"]\n",
			contrib.ManifestInvalid, 3, 1, `"network"`, false},
		{"bad dependency version", "id = \"acme.x\"\nversion = \"1.0.0\"\n\n[dependencies]\n\"acme.core\" = \"1.x\"\n",
			contrib.ManifestInvalid, 5, 1, `"acme.core"`, false},
		{"bad dependency id", "id = \"acme.x\"\nversion = \"1.0.0\"\n[dependencies]\nCore = \"1.0.0\"\n",
			contrib.ManifestInvalid, 4, 1, `"Core"`, false},
		{"entry outside", "id = \"acme.x\"\nversion = \"1.0.0\"\nentry = \"../evil.star\"\n",
			contrib.ManifestInvalid, 3, 1, "entry", false},
		{"syntax error", "id = \"acme.x\"\nversion = \"1.0.0\nentry = \"x.star\"\n",
			contrib.ManifestSyntax, 2, -1, "not valid TOML", false},
		{"unknown table", "id = \"acme.x\"\nversion = \"1.0.0\"\n[extra]\nflavour = 1\n",
			contrib.ManifestUnknownKey, 3, 0, `"extra"`, false},
		{"unknown dotted key", "id = \"acme.x\"\nversion = \"1.0.0\"\nextra.flavour = 1\n",
			contrib.ManifestUnknownKey, 3, 0, `"extra.flavour"`, false},
		{"type error", "id = \"acme.x\"\nversion = \"1.0.0\"\n[dependencies]\n\"acme.core\" = 1\n",
			contrib.ManifestInvalid, 4, 0, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, diags := ParseManifest(file, []byte(tt.toml), "acme")
			if m != nil {
				t.Errorf("manifest accepted: %+v", m)
			}
			var d *contrib.Diagnostic
			for i := range diags {
				if diags[i].Code == tt.code && strings.Contains(diags[i].Message, tt.message) {
					d = &diags[i]
					break
				}
			}
			if d == nil || (tt.one && len(diags) != 1) {
				t.Fatalf("diagnostics = %v, want %s mentioning %q", diags, tt.code, tt.message)
			}
			if d.Pos.File != file || d.Pos.Line != tt.line {
				t.Errorf("pos = %v, want %s:%d", d.Pos, file, tt.line)
			}
			switch {
			case tt.col > 0 && d.Pos.Col != tt.col:
				t.Errorf("col = %d, want %d", d.Pos.Col, tt.col)
			case tt.col < 0 && d.Pos.Col <= 0:
				t.Errorf("col = %d, want a column (line:col)", d.Pos.Col)
			}
			if d.Severity != contrib.SeverityError {
				t.Errorf("severity = %s, want error", d.Severity)
			}
			if strings.Contains(d.Message, "\n") {
				t.Errorf("message spans lines: %q", d.Message)
			}
		})
	}
}

func TestAT4_ManifestDefaults(t *testing.T) {
	m, diags := ParseManifest("plugin.toml", []byte(`
id = "acme.review"
version = "0.3.1"
display_name = "Acme Review"
capabilities = ["models", "data"]
exports = ["reviewer"]

[dependencies]
"acme.core" = "1.2.0"
`), "review")
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	if m.Entry != "plugin.star" {
		t.Errorf("entry = %q, want the default plugin.star", m.Entry)
	}
	if !m.IsEnabled() || !m.hasCapability("models") || m.hasCapability("network") {
		t.Errorf("flags wrong: %+v", m)
	}
	if m.Name() != "Acme Review" || m.Dependencies["acme.core"] != "1.2.0" {
		t.Errorf("decoded %+v", m)
	}
	if m, _ := ParseManifest("plugin.toml", []byte("id = \"a\"\nversion = \"1.0.0\"\nenabled = false\nentry = \"src/main.star\"\n"), "a"); m == nil || m.IsEnabled() || m.Entry != "src/main.star" || m.Name() != "a" {
		t.Errorf("second manifest: %+v", m)
	}
}

func TestAT4_ManifestDiagnosticsNameThePlugin(t *testing.T) {
	// With a valid id the diagnostics carry it; otherwise the directory name.
	_, diags := ParseManifest("plugin.toml", []byte("id = \"acme.x\"\nversion = \"x\"\n"), "dir")
	if len(diags) != 1 || diags[0].Plugin != "acme.x" {
		t.Errorf("diagnostics = %v, want one for acme.x", diags)
	}
	_, diags = ParseManifest("plugin.toml", []byte("id = \"BAD\"\nversion = \"1.0.0\"\n"), "dir")
	if len(diags) != 1 || diags[0].Plugin != "dir" {
		t.Errorf("diagnostics = %v, want one for dir", diags)
	}
}

func TestAT4_CheckID(t *testing.T) {
	for id, ok := range map[string]bool{
		"a": true, "acme.review-core_2": true, "a" + strings.Repeat("b", 63): true,
		"a" + strings.Repeat("b", 64): false, "": false, "1acme": false, "Acme": false, "acme review": false,
	} {
		t.Run(id, func(t *testing.T) {
			if got := CheckID(id) == nil; got != ok {
				t.Errorf("CheckID(%q) valid = %v, want %v", id, got, ok)
			}
		})
	}
}
