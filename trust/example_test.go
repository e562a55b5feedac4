package trust_test

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/crystal-star/crystal-star/trust"
)

func ExampleFingerprint() {
	d := trust.Declarations{
		ID: "acme.review-core", Version: "1.2.0", Entry: "plugin.star", MinHostVersion: "0.1.0",
		Capabilities: []string{"models", "data"},
		Exports:      []string{"review"},
		Dependencies: map[string]string{"acme.review-base": "1.0.0"},
	}
	files := map[string][]byte{
		"plugin.star":   []byte("load(\"lib/util.star\", \"double\")\n\ncontribute(tools = [])\n"),
		"lib/util.star": []byte("def double(x):\n    return 2 * x\n"),
		"plugin.toml":   []byte("id = \"acme.review-core\"\n"), // not hashed: d stands for it
	}
	fmt.Println(trust.Fingerprint(d, files))
	// Output: sha256:d583b7232503bba866ef1babdc843b5acc4ac63fa757a67ff04bd86cba20a816
}

func ExampleStore() {
	home, _ := os.MkdirTemp("", "crystal-home")
	defer os.RemoveAll(home)
	store := trust.NewStore(filepath.Join(home, "plugin-trust.json"))

	fp := trust.Fingerprint(trust.Declarations{ID: "acme.review-core", Version: "1.2.0"}, nil)
	before, _ := store.Load()
	fmt.Println(before.Verdict("acme.review-core", fp))

	err := store.Grant("acme.review-core", fp, time.Now())
	after, _ := store.Load()
	fmt.Println(err, after.Verdict("acme.review-core", fp))

	newer := trust.Fingerprint(trust.Declarations{ID: "acme.review-core", Version: "1.3.0"}, nil)
	fmt.Println(after.Verdict("acme.review-core", newer))
	// Output:
	// untrusted
	// <nil> trusted
	// modified
}
