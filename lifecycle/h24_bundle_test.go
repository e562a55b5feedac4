package lifecycle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/internal/testkit"
)

// TestH24_2_BundleReadsAtMostTheCap: a file larger than the bundle's cap
// (here a sparse 64 GiB one, which a hostile repository could not ship but
// a local directory can hold) is refused after reading the cap, not after
// reading the file: ReadBundle's memory is bounded by maxBundleBytes. The
// language server and activation read plugin files through it.
func TestH24_2_BundleReadsAtMostTheCap(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "p")
	testkit.Plugin{ID: "me.big"}.Write(t, dir)
	f, err := os.Create(filepath.Join(dir, "huge.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(64 << 30); err != nil {
		f.Close()
		t.Skipf("no sparse files here: %v", err)
	}
	f.Close()
	_, err = ReadBundle(dir)
	if err == nil || !strings.Contains(err.Error(), "is larger than") {
		t.Fatalf("ReadBundle = %v; want the size cap's error", err)
	}
}
