package starhost

import (
	"os"
	"testing"

	"github.com/crystal-star/crystal-star/contrib"
)

// BenchmarkH24_1_DataDirs measures what a generation with the data
// capability pays for its directories now that ownership is checked (issue
// 24, point 1), against the raw baseline in the same run: the two
// os.MkdirAll calls the host made before. The directory is already owned,
// the steady state of every reload: two unlocked reads of the records, no
// lock, no write.
func BenchmarkH24_1_DataDirs(b *testing.B) {
	h := &Host{opts: Options{Home: b.TempDir(), Workspace: b.TempDir()}}
	if _, _, refused := h.dataDirs("acme.p", "tools", contrib.SourceHome); refused != nil {
		b.Fatal(refused)
	}
	global, project := h.paths().Data("tools")
	var raw, owned float64
	b.Run("raw_mkdir", func(b *testing.B) {
		for b.Loop() {
			_ = os.MkdirAll(global, 0o755)
			_ = os.MkdirAll(project, 0o755)
		}
		raw = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	b.Run("owned", func(b *testing.B) {
		for b.Loop() {
			if _, _, refused := h.dataDirs("acme.p", "tools", contrib.SourceHome); refused != nil {
				b.Fatal(refused)
			}
		}
		owned = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		if raw > 0 {
			b.ReportMetric(owned/raw, "x_raw")
		}
	})
}
