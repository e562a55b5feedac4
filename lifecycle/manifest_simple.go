package lifecycle

import "bytes"

// simpleKeys are the string fields decodeSimpleManifest sets, by TOML key.
var simpleKeys = map[string]func(m *Manifest) *string{
	"id":               func(m *Manifest) *string { return &m.ID },
	"version":          func(m *Manifest) *string { return &m.Version },
	"display_name":     func(m *Manifest) *string { return &m.DisplayName },
	"description":      func(m *Manifest) *string { return &m.Description },
	"entry":            func(m *Manifest) *string { return &m.Entry },
	"min_host_version": func(m *Manifest) *string { return &m.MinHostVersion },
}

// decodeSimpleManifest decodes the common plugin.toml — blank lines,
// comments and top-level `key = "text"` lines of the string fields, each key
// once, printable ASCII only, no escapes — without the TOML decoder, which
// costs more than the rest of a one-tool plugin's manifest handling at
// thousands of plugins (docs/performance.md, "Scale"). ok is false for
// anything else, and the strict decoder then reads the file: this path
// accepts only what the decoder would decode to the same Manifest with no
// undecoded key (TestSimpleManifestAgreesWithDecoder).
func decodeSimpleManifest(data []byte) (m Manifest, ok bool) {
	seen := 0
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			// CRLF ends a line too; a CR anywhere else is left to the decoder.
			line, data = bytes.TrimSuffix(data[:i], []byte{'\r'}), data[i+1:]
		} else {
			data = nil
		}
		for _, c := range line {
			if (c < 0x20 && c != '\t') || c > 0x7e {
				return Manifest{}, false
			}
		}
		line = bytes.Trim(line, " \t")
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		eq := bytes.IndexByte(line, '=')
		if eq < 0 {
			return Manifest{}, false
		}
		field, known := simpleKeys[string(bytes.TrimRight(line[:eq], " \t"))]
		val := bytes.TrimLeft(line[eq+1:], " \t")
		if !known || len(val) < 2 || val[0] != '"' || val[len(val)-1] != '"' ||
			bytes.ContainsAny(val[1:len(val)-1], "\"\\") {
			return Manifest{}, false
		}
		p := field(&m)
		if *p != "" || val[1] == '"' && len(val) == 2 {
			// a key given twice is a decoder error; an empty string is left to
			// the decoder too, so "given twice" stays decidable by *p != "".
			return Manifest{}, false
		}
		*p = string(val[1 : len(val)-1])
		seen++
	}
	return m, seen > 0
}
