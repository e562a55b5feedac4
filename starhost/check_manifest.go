package starhost

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/lifecycle"
)

// manifestKeys are the top-level keys of plugin.toml, read from the
// manifest's own decoding table.
var manifestKeys = func() []string {
	var keys []string
	t := reflect.TypeFor[lifecycle.Manifest]()
	for i := range t.NumField() {
		if tag := t.Field(i).Tag.Get("toml"); tag != "" {
			keys = append(keys, tag)
		}
	}
	return keys
}()

var (
	unknownKeyRE = regexp.MustCompile(`^unknown key "([^"]+)" in `)
	missingKeyRE = regexp.MustCompile(`^([a-z_]+) is missing$`)
)

// explainManifest returns the candidate's discovery diagnostics with the
// nearest known key added to each unknown key, and a missing key pointed
// at the misspelling that likely meant it (or at the end of the top-level
// table, where it belongs) instead of 1:1.
func explainManifest(c *lifecycle.Candidate) []contrib.Diagnostic {
	out := make([]contrib.Diagnostic, len(c.Diagnostics))
	meant := map[string]contrib.Diagnostic{} // known key -> the unknown key that is near it
	for i, d := range c.Diagnostics {
		if m := unknownKeyRE.FindStringSubmatch(d.Message); d.Code == contrib.ManifestUnknownKey && m != nil && !strings.Contains(m[1], ".") {
			if near := contrib.Nearest(m[1], manifestKeys); near != "" {
				d.Message += contrib.DidYouMean(m[1], manifestKeys)
				meant[near] = d
			} else {
				d.Message += "; known keys: " + strings.Join(manifestKeys, ", ")
			}
		}
		out[i] = d
	}
	for i, d := range out {
		m := missingKeyRE.FindStringSubmatch(d.Message)
		if d.Code != contrib.ManifestInvalid || m == nil {
			continue
		}
		if typo, ok := meant[m[1]]; ok {
			out[i].Pos = typo.Pos
			out[i].Message = m[1] + " is missing; the key at this line looks like a misspelling of it"
			continue
		}
		out[i].Pos = topLevelTable(c)
		out[i].Message = m[1] + " is missing; add " + m[1] + " = \"...\" to the top of " + lifecycle.ManifestName
	}
	return out
}

// topLevelTable returns where the manifest's top-level table starts: its
// first key, where a missing key belongs (1:1 in an empty file).
func topLevelTable(c *lifecycle.Candidate) contrib.Pos {
	pos := contrib.Pos{File: c.Display + "/" + lifecycle.ManifestName, Line: 1, Col: 1}
	data, err := os.ReadFile(filepath.Join(c.Dir, lifecycle.ManifestName))
	if err != nil {
		return pos
	}
	for i, line := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			break
		}
		if t != "" && !strings.HasPrefix(t, "#") {
			pos.Line, pos.Col = i+1, strings.Index(line, t)+1
			break
		}
	}
	return pos
}
