package format

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/fmt")

// TestFormatGolden formats each testdata/fmt/*.in and compares the result
// with the .golden beside it (-update rewrites the goldens). Formatting a
// golden again must change nothing (idempotence).
func TestFormatGolden(t *testing.T) {
	ins, err := filepath.Glob("../../testdata/fmt/*.in")
	if err != nil || len(ins) == 0 {
		t.Fatalf("no formatter cases: %v", err)
	}
	for _, in := range ins {
		name := strings.TrimSuffix(filepath.Base(in), ".in")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Source(name+".star", src)
			if err != nil {
				t.Fatal(err)
			}
			golden := strings.TrimSuffix(in, ".in") + ".golden"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("Source(%s):\n got:\n%s\nwant:\n%s", in, got, want)
			}
			again, err := Source(name+".star", want)
			if err != nil || string(again) != string(want) {
				t.Errorf("formatting %s again changed it (err %v):\n%s", golden, err, again)
			}
		})
	}
}

func TestFormatRefusesWhileLoops(t *testing.T) {
	src := []byte("def count(n):\n    i = 0\n    while i < n:\n        i += 1\n    return i\n")
	_, err := Source("loop.star", src)
	if err == nil || !strings.Contains(err.Error(), "while loops") || !strings.HasPrefix(err.Error(), "loop.star:3:") {
		t.Errorf("Format = %v; want a refusal naming while loops at loop.star:3", err)
	}
}

func TestFormatSyntaxError(t *testing.T) {
	_, err := Source("bad.star", []byte("def f(:\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "bad.star:1:") {
		t.Errorf("Format = %v; want a syntax error at bad.star:1", err)
	}
}

// TestExamplePluginsAreFormatted keeps plugins/ formatted: run
// `crystal-star fmt -w plugins` when it fails.
func TestExamplePluginsAreFormatted(t *testing.T) {
	n := 0
	err := filepath.WalkDir("../../plugins", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".star") {
			return err
		}
		n++
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out, err := Source(p, src)
		if err != nil {
			t.Errorf("%s: %v", p, err)
		} else if string(out) != string(src) {
			t.Errorf("%s is not formatted; run: crystal-star fmt -w plugins", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no .star files under plugins/")
	}
}
