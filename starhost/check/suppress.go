// Suppression comments: `# crystal-star: disable=Code[,starhost.Code]` on a line
// drops findings of those codes there.

package check

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/crystal-star/crystal-star/contrib"
)

// suppressMarker starts a suppression comment.
const suppressMarker = "crystal-star: disable="

// suppressed reports whether the line of d's position carries
// `# crystal-star: disable=` naming d's code.
func (p *checkPlugin) suppressed(d contrib.Diagnostic) bool {
	line := p.line(d.Pos.File, d.Pos.Line)
	hash := strings.IndexByte(line, '#')
	if hash < 0 {
		return false
	}
	_, rest, ok := strings.Cut(line[hash:], suppressMarker)
	if !ok {
		return false
	}
	codes, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
	return slices.Contains(strings.Split(codes, ","), string(d.Code))
}

// line returns line n of a file of p named as in positions, or "".
func (p *checkPlugin) line(file string, n int) string {
	lines, ok := p.lines[file]
	if !ok {
		rel, inside := strings.CutPrefix(file, p.cand.Display+"/")
		if inside {
			data, found := p.files[rel]
			if !found {
				data, _ = os.ReadFile(filepath.Join(p.cand.Dir, filepath.FromSlash(rel)))
			}
			lines = strings.Split(string(data), "\n")
		}
		p.lines[file] = lines
	}
	if n < 1 || n > len(lines) {
		return ""
	}
	return lines[n-1]
}
