package lifecycle

import (
	"bytes"
	"cmp"
	"errors"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"golang.org/x/mod/semver"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/internal/tomlpos"
)

// ManifestName is the manifest file of every plugin directory.
const ManifestName = "plugin.toml"

// Capabilities are the opt-ins a manifest may declare: model clients (CC24)
// and data directories (CC29).
var Capabilities = []string{"models", "data"}

// Manifest is a decoded plugin.toml.
type Manifest struct {
	ID             string            `toml:"id"`
	Version        string            `toml:"version"`
	DisplayName    string            `toml:"display_name"`
	Description    string            `toml:"description"`
	Entry          string            `toml:"entry"`
	MinHostVersion string            `toml:"min_host_version"`
	Enabled        *bool             `toml:"enabled"`
	Capabilities   []string          `toml:"capabilities"`
	Exports        []string          `toml:"exports"`
	Dependencies   map[string]string `toml:"dependencies"`
}

// IsEnabled reports the manifest's enabled flag (default true).
func (m *Manifest) IsEnabled() bool { return m.Enabled == nil || *m.Enabled }

// hasCapability reports whether the manifest opts in to capability c.
func (m *Manifest) hasCapability(c string) bool { return slices.Contains(m.Capabilities, c) }

// Name returns the display name, falling back to the id.
func (m *Manifest) Name() string {
	if m.DisplayName != "" {
		return m.DisplayName
	}
	return m.ID
}

var typeErrLine = regexp.MustCompile(`line (\d+)`)

var idPattern = regexp.MustCompile(`^[a-z][a-z0-9._-]{0,63}$`)

// CheckID returns why id is not a valid plugin id, phrased to follow the id
// ("id %q <reason>"), or nil.
func CheckID(id string) error {
	if !idPattern.MatchString(id) {
		return errors.New("must be a lowercase letter followed by lowercase letters, digits, '.', '_' or '-', 1–64 characters")
	}
	return nil
}

// validVersion reports whether v is MAJOR.MINOR.PATCH.
func validVersion(v string) bool {
	return semver.IsValid("v"+v) && semver.Canonical("v"+v) == "v"+v && !strings.ContainsAny(v, "-+")
}

// ParseManifest decodes plugin.toml strictly (AT4: reading files only). file
// is the name used in positions. Every problem is a diagnostic with its
// line; the manifest is nil when it cannot be used.
func ParseManifest(file string, data []byte, plugin string) (*Manifest, []contrib.Diagnostic) {
	m, simple := decodeSimpleManifest(data)
	var undecoded []toml.Key
	if !simple {
		md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&m)
		if err != nil {
			return nil, decodeError(file, plugin, err)
		}
		undecoded = md.Undecoded()
	}
	if m.ID != "" && CheckID(m.ID) == nil {
		plugin = m.ID
	}
	at := func(key ...string) contrib.Pos {
		line, col := tomlpos.Position(data, key)
		return contrib.Pos{File: file, Line: line, Col: col}
	}
	var diags []contrib.Diagnostic
	bad := func(code contrib.Code, pos contrib.Pos, format string, args ...any) {
		diags = append(diags, contrib.Diag(code, plugin, pos, format, args...))
	}
	var unknown []string // top-level keys, for the "did you mean" of a missing one
	for _, k := range undecoded {
		bad(contrib.ManifestUnknownKey, at(k...), "unknown key %q in %s%s", k.String(), ManifestName, knownKeyHint(k))
		if len(k) == 1 {
			unknown = append(unknown, k[0])
		}
	}
	missing := func(key string) {
		pos, msg := missingKey(file, data, key, unknown)
		bad(contrib.ManifestInvalid, pos, "%s", msg)
	}
	if m.ID == "" {
		missing("id")
	} else if err := CheckID(m.ID); err != nil {
		bad(contrib.ManifestInvalid, at("id"), "id %q %v", m.ID, err)
	}
	if m.Version == "" {
		missing("version")
	} else if !validVersion(m.Version) {
		bad(contrib.ManifestInvalid, at("version"), "version %q is not MAJOR.MINOR.PATCH", m.Version)
	}
	if m.MinHostVersion != "" && !validVersion(m.MinHostVersion) {
		bad(contrib.ManifestInvalid, at("min_host_version"), "min_host_version %q is not MAJOR.MINOR.PATCH", m.MinHostVersion)
	}
	if m.Entry == "" {
		m.Entry = "plugin.star"
	} else if strings.HasPrefix(m.Entry, "/") || strings.Contains(m.Entry, "..") || !strings.HasSuffix(m.Entry, ".star") {
		bad(contrib.ManifestInvalid, at("entry"), "entry %q must be a relative .star path inside the plugin directory", m.Entry)
	}
	for _, c := range m.Capabilities {
		if !slices.Contains(Capabilities, c) {
			bad(contrib.ManifestInvalid, at("capabilities"), "unknown capability %q; known: %s", c, strings.Join(Capabilities, ", "))
		}
	}
	for _, e := range m.Exports {
		if err := contrib.CheckToolName(e); err != nil {
			bad(contrib.ManifestInvalid, at("exports"), "export name %q %v", e, err)
		}
	}
	for _, dep := range slices.Sorted(maps.Keys(m.Dependencies)) {
		v := m.Dependencies[dep]
		if err := CheckID(dep); err != nil {
			bad(contrib.ManifestInvalid, at("dependencies", dep), "dependency id %q %v", dep, err)
		} else if !validVersion(v) {
			bad(contrib.ManifestInvalid, at("dependencies", dep), "dependency %q: minimum version %q is not MAJOR.MINOR.PATCH", dep, v)
		}
	}
	if len(diags) > 0 {
		slices.SortStableFunc(diags, func(a, b contrib.Diagnostic) int { // in file order, as check prints them
			return cmp.Or(cmp.Compare(a.Pos.Line, b.Pos.Line), cmp.Compare(a.Pos.Col, b.Pos.Col), cmp.Compare(a.Code, b.Code))
		})
		return nil, diags
	}
	return &m, nil
}

// decodeError is the diagnostic of a plugin.toml the decoder rejects.
func decodeError(file, plugin string, err error) []contrib.Diagnostic {
	pos := contrib.Pos{File: file}
	var pe toml.ParseError
	if errors.As(err, &pe) {
		pos.Line, pos.Col = pe.Position.Line, pe.Position.Col
		return []contrib.Diagnostic{contrib.Diag(contrib.ManifestSyntax, plugin, pos, "%s is not valid TOML: %s", ManifestName, pe.Message)}
	}
	// The TOML parsed, but a value has the wrong type: the decoder
	// names the line in its message.
	if m := typeErrLine.FindStringSubmatch(err.Error()); m != nil {
		pos.Line, _ = strconv.Atoi(m[1])
		pos.Col = 1
	}
	return []contrib.Diagnostic{contrib.Diag(contrib.ManifestInvalid, plugin, pos, "%s has a value of the wrong type: %v", ManifestName, err)}
}
