package lifecycle

import (
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/internal/tomlpos"
)

// The manifest's diagnostics say what to write, the same in check, in the
// running host's plugin listing and in the dev console: an unknown key
// names the nearest known one, and a missing key points at the line that
// likely misspells it, else at the top-level table where it belongs.

// manifestKeys are the top-level keys of plugin.toml, read from Manifest's
// own decoding table.
var manifestKeys = func() []string {
	var keys []string
	t := reflect.TypeFor[Manifest]()
	for i := range t.NumField() {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ","); tag != "" {
			keys = append(keys, tag)
		}
	}
	return keys
}()

// knownKeyHint is what follows "unknown key k": the nearest top-level key,
// or the list of them.
func knownKeyHint(k toml.Key) string {
	if len(k) != 1 {
		return ""
	}
	if hint := contrib.DidYouMean(k[0], manifestKeys); hint != "" {
		return hint
	}
	return "; known keys: " + strings.Join(manifestKeys, ", ")
}

// missingKey returns where a missing required key is reported and the
// message: at an unknown key that is near it, else at the top-level table.
func missingKey(file string, data []byte, key string, unknown []string) (contrib.Pos, string) {
	for _, u := range unknown {
		if contrib.Nearest(u, manifestKeys) == key {
			line, col := tomlpos.Position(data, []string{u})
			return contrib.Pos{File: file, Line: line, Col: col}, key + " is missing; the key at this line looks like a misspelling of it"
		}
	}
	return topLevelTable(file, data), key + " is missing; add " + key + " = \"...\" to the top of " + ManifestName
}

// topLevelTable returns where the manifest's top-level table starts: its
// first key, where a missing key belongs (1:1 in an empty file).
func topLevelTable(file string, data []byte) contrib.Pos {
	pos := contrib.Pos{File: file, Line: 1, Col: 1}
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
