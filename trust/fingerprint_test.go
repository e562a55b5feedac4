package trust

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// vectorDeclarations and vectorFiles are the published test vector of docs/trust.md.
func vectorDeclarations() Declarations {
	return Declarations{
		ID: "acme.review-core", Version: "1.2.0", Entry: "plugin.star", MinHostVersion: "0.1.0",
		Capabilities: []string{"models", "data"},
		Exports:      []string{"review"},
		Dependencies: map[string]string{"acme.review-base": "1.0.0"},
	}
}

func vectorFiles() map[string][]byte {
	return map[string][]byte{
		"plugin.star":   []byte("load(\"lib/util.star\", \"double\")\n\ncontribute(tools = [])\n"),
		"lib/util.star": []byte("def double(x):\n    return 2 * x\n"),
		"plugin.toml":   []byte("id = \"acme.review-core\"\n"),
	}
}

const (
	vectorFingerprint = "sha256:d583b7232503bba866ef1babdc843b5acc4ac63fa757a67ff04bd86cba20a816"
	emptyFingerprint  = "sha256:8395ab3f93b758ba72b1972ec7287ca3150c34a3232c611516177314f261b04c"
	layoutFingerprint = "sha256:50f30fc03582a633654e73a34a7636bba68c8c510c60612c53f5e77e5c410606"
)

func TestDC18_PublishedTestVectors(t *testing.T) {
	if got := Fingerprint(vectorDeclarations(), vectorFiles()); got != vectorFingerprint {
		t.Errorf("review-core vector = %s, want %s", got, vectorFingerprint)
	}
	if got := Fingerprint(Declarations{}, nil); got != emptyFingerprint {
		t.Errorf("empty vector = %s, want %s", got, emptyFingerprint)
	}
}

// TestDC18_StreamLayout spells the stream out piece by piece, independently of the encoder.
func TestDC18_StreamLayout(t *testing.T) {
	u64 := func(n int) []byte { return binary.BigEndian.AppendUint64(nil, uint64(n)) }
	str := func(s string) []byte { return append(u64(len(s)), s...) }
	want := slices.Concat(
		str("crystal-star/fingerprint"), u64(1),
		str("declarations"),
		str("id"), str("a"),
		str("version"), str("1.0.0"),
		str("entry"), str("p.star"),
		str("min_host_version"), str(""),
		str("capabilities"), u64(1), str("data"),
		str("exports"), u64(0),
		str("dependencies"), u64(1), str("b"), str("1.0.0"),
		str("file"), str("p.star"), str("x = 1\n"),
	)
	d := Declarations{ID: "a", Version: "1.0.0", Entry: "p.star", Capabilities: []string{"data", "data"},
		Dependencies: map[string]string{"b": "1.0.0"}}
	files := map[string][]byte{"p.star": []byte("x = 1\n"), ".builtin": nil, "desktop/icon.png": {1}}
	var got bytes.Buffer
	writeStream(&got, d, files)
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("stream:\n%s\nwant:\n%s", hex.Dump(got.Bytes()), hex.Dump(want))
	}
	sum := sha256.Sum256(want)
	if fp := Fingerprint(d, files); fp != "sha256:"+hex.EncodeToString(sum[:]) || fp != layoutFingerprint {
		t.Errorf("Fingerprint = %s, want the sha256 of the stream, %s", fp, layoutFingerprint)
	}
}

func TestDC18_FingerprintFormat(t *testing.T) {
	fp := Fingerprint(vectorDeclarations(), vectorFiles())
	if !validFingerprint(fp) {
		t.Fatalf("%q is not sha256: + 64 lowercase hex", fp)
	}
	for _, bad := range []string{"", "sha256:", "sha1:" + strings.Repeat("a", 64),
		"sha256:" + strings.Repeat("A", 64), "sha256:" + strings.Repeat("a", 63)} {
		if validFingerprint(bad) {
			t.Errorf("validFingerprint(%q) = true", bad)
		}
	}
}

// TestDC18_WhatTheFingerprintCovers: every declaration field and every
// file below the plugin root changes the fingerprint; the excluded root
// paths (plugin.toml, .builtin, desktop/) do not, wherever else such a
// name stands it does.
func TestDC18_WhatTheFingerprintCovers(t *testing.T) {
	base := Fingerprint(vectorDeclarations(), vectorFiles())
	decl := func(f func(*Declarations)) func(*Declarations, map[string][]byte) {
		return func(d *Declarations, _ map[string][]byte) { f(d) }
	}
	file := func(f func(map[string][]byte)) func(*Declarations, map[string][]byte) {
		return func(_ *Declarations, files map[string][]byte) { f(files) }
	}
	put := func(path, content string) func(*Declarations, map[string][]byte) {
		return file(func(f map[string][]byte) { f[path] = []byte(content) })
	}
	for _, c := range []struct {
		name   string
		change func(*Declarations, map[string][]byte)
		same   bool
	}{
		{"id", decl(func(d *Declarations) { d.ID = "acme.review-other" }), false},
		{"version", decl(func(d *Declarations) { d.Version = "1.2.1" }), false},
		{"entry", decl(func(d *Declarations) { d.Entry = "lib/util.star" }), false},
		{"min_host_version", decl(func(d *Declarations) { d.MinHostVersion = "0.2.0" }), false},
		{"capability added", decl(func(d *Declarations) { d.Capabilities = append(d.Capabilities, "status") }), false},
		{"capability gone", decl(func(d *Declarations) { d.Capabilities = d.Capabilities[:1] }), false},
		{"export renamed", decl(func(d *Declarations) { d.Exports = []string{"reviews"} }), false},
		{"export gone", decl(func(d *Declarations) { d.Exports = nil }), false},
		{"dependency added", decl(func(d *Declarations) { d.Dependencies["acme.extra"] = "0.1.0" }), false},
		{"dependency gone", decl(func(d *Declarations) { d.Dependencies = nil }), false},
		{"dependency raised", decl(func(d *Declarations) { d.Dependencies["acme.review-base"] = "1.1.0" }), false},
		{"file renamed", file(func(f map[string][]byte) { f["lib/utils.star"] = f["lib/util.star"]; delete(f, "lib/util.star") }), false},
		{"file removed", file(func(f map[string][]byte) { delete(f, "lib/util.star") }), false},
		{"file truncated", file(func(f map[string][]byte) { f["plugin.star"] = f["plugin.star"][:10] }), false},
		{"file extended", file(func(f map[string][]byte) { f["plugin.star"] = append(bytes.Clone(f["plugin.star"]), '\n') }), false},
		{"empty file added", file(func(f map[string][]byte) { f["lib/new.star"] = nil }), false},
		{"excluded .builtin", put(".builtin", "bundled by the host\n"), true},
		{"excluded desktop/x", put("desktop/x", "x"), true},
		{"excluded desktop/icons", put("desktop/icons/app.png", "\x89PNG"), true},
		{"excluded plugin.toml", put("plugin.toml", "# comment\ndisplay_name = \"Other\"\nenabled = false\nid = \"acme.review-core\"\n"), true},
		{"excluded plugin.toml gone", file(func(f map[string][]byte) { delete(f, "plugin.toml") }), true},
		{"hashed desktop file", put("desktop", "x"), false},
		{"hashed desktopx/y", put("desktopx/y", "x"), false},
		{"hashed lib/desktop/x", put("lib/desktop/x", "x"), false},
		{"hashed lib/.builtin", put("lib/.builtin", "x"), false},
		{"hashed lib/plugin.toml", put("lib/plugin.toml", "x"), false},
		{"hashed .builtin2", put(".builtin2", "x"), false},
		// Issue 24, point 5: git metadata at any depth, never a file named .git.
		{"excluded .git/HEAD", put(".git/HEAD", "ref: refs/heads/main\n"), true},
		{"excluded sub/.git/HEAD", put("sub/.git/HEAD", "ref: refs/heads/evil\n"), true},
		{"excluded a/b/.git/objects/x", put("a/b/.git/objects/x", "x"), true},
		{"hashed .git file", put(".git", "gitdir: ../.git/modules/p\n"), false},
		{"hashed sub/.git file", put("sub/.git", "gitdir: x\n"), false},
		{"hashed sub/.gitignore", put("sub/.gitignore", "x"), false},
		{"hashed sub/x.git/y", put("sub/x.git/y", "x"), false},
		{"hashed .github/x", put(".github/x", "x"), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, files := vectorDeclarations(), vectorFiles()
			c.change(&d, files)
			if same := Fingerprint(d, files) == base; same != c.same {
				t.Errorf("fingerprint unchanged = %v, want %v", same, c.same)
			}
		})
	}
}

func TestDC18_ListOrderAndDuplicatesDoNotMatter(t *testing.T) {
	base := Fingerprint(vectorDeclarations(), vectorFiles())
	d := vectorDeclarations()
	d.Capabilities = []string{"data", "models", "data"}
	d.Exports = []string{"review", "review"}
	if Fingerprint(d, vectorFiles()) != base {
		t.Error("reordered or duplicated lists changed the fingerprint")
	}
	if !slices.Equal(d.Capabilities, []string{"data", "models", "data"}) {
		t.Errorf("Fingerprint modified its input: %v", d.Capabilities)
	}
	if Fingerprint(Declarations{Exports: []string{}, Dependencies: map[string]string{}}, map[string][]byte{}) != emptyFingerprint {
		t.Error("empty and nil lists hash differently")
	}
}

func TestDC18_TamperSweepChangesTheFingerprint(t *testing.T) {
	base := Fingerprint(vectorDeclarations(), vectorFiles())
	seen := map[string]string{base: "original"}
	for path, content := range vectorFiles() {
		if excluded(path) {
			continue
		}
		for i := range content {
			files := vectorFiles()
			tampered := bytes.Clone(content)
			tampered[i] ^= 0x01
			files[path] = tampered
			fp := Fingerprint(vectorDeclarations(), files)
			where := fmt.Sprintf("%s byte %d", path, i)
			if prev, dup := seen[fp]; dup {
				t.Fatalf("%s hashes like %s", where, prev)
			}
			seen[fp] = where
		}
	}
}

func TestDC18_AmbiguousInputsHashDifferently(t *testing.T) {
	type input struct {
		d     Declarations
		files map[string][]byte
	}
	pairs := map[string][2]input{
		"path/content boundary": {
			{files: map[string][]byte{"ab": []byte("c")}},
			{files: map[string][]byte{"a": []byte("bc")}},
		},
		"two files vs one concatenated": {
			{files: map[string][]byte{"a": []byte("x"), "b": []byte("y")}},
			{files: map[string][]byte{"a": append([]byte("x"), "\x00\x00\x00\x00\x00\x00\x00\x04file\x00\x00\x00\x00\x00\x00\x00\x01b\x00\x00\x00\x00\x00\x00\x00\x01y"...)}},
		},
		"two files vs one with both contents": {
			{files: map[string][]byte{"a": []byte("x"), "b": []byte("y")}},
			{files: map[string][]byte{"a": []byte("xy")}},
		},
		"empty file vs no file": {
			{files: map[string][]byte{"a": nil}},
			{files: nil},
		},
		"list item boundary": {
			{d: Declarations{Capabilities: []string{"ab"}}},
			{d: Declarations{Capabilities: []string{"a", "b"}}},
		},
		"list vs neighbouring list": {
			{d: Declarations{Capabilities: []string{"x"}}},
			{d: Declarations{Exports: []string{"x"}}},
		},
		"field shift": {
			{d: Declarations{ID: "a"}},
			{d: Declarations{Version: "a"}},
		},
		"dependency key/value boundary": {
			{d: Declarations{Dependencies: map[string]string{"ab": "c"}}},
			{d: Declarations{Dependencies: map[string]string{"a": "bc"}}},
		},
		"dependency vs export": {
			{d: Declarations{Dependencies: map[string]string{"a": "1.0.0"}}},
			{d: Declarations{Exports: []string{"a", "1.0.0"}}},
		},
	}
	for name, p := range pairs {
		t.Run(name, func(t *testing.T) {
			if Fingerprint(p[0].d, p[0].files) == Fingerprint(p[1].d, p[1].files) {
				t.Error("fingerprints collide")
			}
		})
	}
}

// benchmarkBundle is a 20-file bundle of about 80 KiB.
func benchmarkBundle() (Declarations, map[string][]byte, int64) {
	files := map[string][]byte{"plugin.toml": []byte("id = \"bench\"\n")}
	var total int64
	for i := range 20 {
		content := bytes.Repeat([]byte(fmt.Sprintf("def f%d(x):\n    return x + %d\n", i, i)), 4096/30)
		files[fmt.Sprintf("lib/mod%02d.star", i)] = content
		total += int64(len(content))
	}
	d := vectorDeclarations()
	d.Dependencies = maps.Clone(d.Dependencies)
	return d, files, total
}

func BenchmarkFingerprint(b *testing.B) {
	d, files, total := benchmarkBundle()
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		Fingerprint(d, files)
	}
}
