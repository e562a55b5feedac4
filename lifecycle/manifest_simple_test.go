package lifecycle

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/crystal-star/crystal-star/internal/scalegen"
)

var simpleManifestSeeds = []string{
	scalegen.Manifest(7),
	"id = \"a.b\"\nversion = \"1.0.0\"\n",
	"id = \"a.b\"\r\nversion = \"1.0.0\"\r\n",
	"# c\n\n  id\t=\t\"a\"  \n\tdescription = \"x = y # z\"\nentry = \"main.star\"\nmin_host_version = \"0.1.0\"\ndisplay_name = \"A\tB\"",
	"id = \"a\"\nid = \"b\"\n",                      // twice: a decoder error
	"id = \"a\"\nversion = \"\"\nversion = \"1\"\n", // empty then given again
	"id = \"a\" # trailing comment\n",
	"id = 'a'\n",
	"\"id\" = \"a\"\n",
	"id = \"a\\u0062\"\n",
	"id = \"\"\"a\"\"\"\n",
	"id = \"a\"\nenabled = false\n",
	"id = \"a\"\n[dependencies]\nx = \"1.0.0\"\n",
	"id = \"a\"\ncapabilities = [\"data\"]\n",
	"id = \"a\"\nunknown = \"x\"\n",
	"id = \"a\"\rversion = \"1.0.0\"\n",
	"id = \"a\"\r",
	"id = \"é\"\n",
	"id = \"a\x7f\"\n",
	"id = \"a\"\x00\n",
	"id.x = \"a\"\n",
	"id = \"a\" \"b\"\n",
	"id = \"a\nb\"\n",
	"",
	"# only a comment\n",
	"id=\"a\"",
}

// TestSimpleManifestAgreesWithDecoder: whatever the fast path accepts, the
// strict TOML decoder decodes to the same Manifest without an error or an
// undecoded key, and the generated scale manifests take the fast path.
func TestSimpleManifestAgreesWithDecoder(t *testing.T) {
	for _, in := range simpleManifestSeeds {
		checkSimpleManifest(t, []byte(in))
	}
	if _, ok := decodeSimpleManifest([]byte(scalegen.Manifest(7))); !ok {
		t.Fatalf("the scale manifest %q does not take the fast path", scalegen.Manifest(7))
	}
	for _, in := range []string{"id = \"a\"\nid = \"b\"\n", "id = \"a\" # c\n", "id = \"a\"\nenabled = false\n", "id = \"a\"\r"} {
		if _, ok := decodeSimpleManifest([]byte(in)); ok {
			t.Errorf("%q took the fast path; want the decoder", in)
		}
	}
}

// FuzzSimpleManifest runs the same agreement check on mutated manifests.
func FuzzSimpleManifest(f *testing.F) {
	for _, in := range simpleManifestSeeds {
		f.Add([]byte(in))
	}
	f.Fuzz(checkSimpleManifest)
}

func checkSimpleManifest(t *testing.T, data []byte) {
	fast, ok := decodeSimpleManifest(data)
	if !ok {
		return
	}
	var want Manifest
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&want)
	if err != nil {
		t.Fatalf("%q: fast path accepted it, the decoder says %v", data, err)
	}
	if u := md.Undecoded(); len(u) > 0 {
		t.Fatalf("%q: fast path accepted it, the decoder leaves %v undecoded", data, u)
	}
	if !reflect.DeepEqual(fast, want) {
		t.Fatalf("%q: fast path %+v, decoder %+v", data, fast, want)
	}
}
