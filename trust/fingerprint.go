package trust

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Declarations are the normalised manifest fields that enter a fingerprint (DC18).
//
// Fingerprint hashes the values as given: defaults (such as entry = "plugin.star") must be
// applied by the manifest decoder before the fingerprint is taken, so that a manifest that
// spells out a default and one that omits it hash the same. The only normalisation done
// here is the one that is order-related: Capabilities and Exports are sorted and
// deduplicated, Dependencies are sorted by key. Nil and empty lists or maps hash the same.
type Declarations struct {
	ID, Version, Entry, MinHostVersion string
	Capabilities, Exports              []string          // order-insensitive: sorted + deduplicated before hashing
	Dependencies                       map[string]string // provider id -> minimum version
}

// streamVersion is the version of the canonical fingerprint stream. It is written into the
// stream's header, so a future layout can never collide with this one.
const streamVersion = 1

// streamMagic opens every fingerprint stream.
const streamMagic = "crystal-star/fingerprint"

// fingerprintPrefix names the hash algorithm in a fingerprint string.
const fingerprintPrefix = "sha256:"

// Fingerprint returns "sha256:" + lowercase hex over the canonical stream described in
// docs/trust.md.
//
// files maps slash-separated bundle-relative paths (e.g. "plugin.star", "lib/util.star") to
// contents. Excluded from the stream: "plugin.toml" (its normalised Declarations are hashed
// instead, so display_name, description, comments, key order and `enabled` do not matter),
// the root ".builtin" marker, everything under the root "desktop/" tree, and everything
// under a directory named ".git" at any depth (git's metadata, which git rewrites on routine
// read-only commands). Only those paths are excluded; "lib/.builtin", "x/desktop/y" or a
// file named ".git" are hashed like any other file. Because excluded paths are not covered,
// the bundle snapshot a plugin runs from must never let entry or load() reach them.
//
// Fingerprint does not modify its arguments and is safe for concurrent use.
func Fingerprint(d Declarations, files map[string][]byte) string {
	h := sha256.New()
	writeStream(h, d, files)
	// fmt rather than encoding/hex: the core links fmt anyway (issue 26 point 1).
	return fingerprintPrefix + fmt.Sprintf("%x", h.Sum(nil))
}

// excluded reports whether a bundle path stays out of the stream (DC18).
func excluded(path string) bool {
	return path == "plugin.toml" || path == ".builtin" || strings.HasPrefix(path, "desktop/") ||
		strings.HasPrefix(path, ".git/") || strings.Contains(path, "/.git/")
}

// writeStream writes the canonical stream to w. w must be a writer that cannot fail (a hash
// or a bytes.Buffer), which is why write errors are not tracked.
func writeStream(w io.Writer, d Declarations, files map[string][]byte) {
	s := &stream{w: w, buf: make([]byte, 0, 256)}

	s.str(streamMagic)
	s.u64(streamVersion)

	s.str("declarations")
	s.field("id", d.ID)
	s.field("version", d.Version)
	s.field("entry", d.Entry)
	s.field("min_host_version", d.MinHostVersion)
	s.list("capabilities", d.Capabilities)
	s.list("exports", d.Exports)
	s.dependencies(d.Dependencies)

	paths := make([]string, 0, len(files))
	for p := range files {
		if !excluded(p) {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	for _, p := range paths {
		s.str("file")
		s.str(p)
		s.bytes(files[p])
	}
}

// stream encodes the primitives of the canonical stream. Every variable-length piece is
// preceded by its length as a uint64 big-endian, so the stream parses back unambiguously.
// buf is scratch space reused for every small write; file contents go straight to w.
type stream struct {
	w   io.Writer
	buf []byte
}

func (s *stream) u64(n uint64) {
	s.buf = binary.BigEndian.AppendUint64(s.buf[:0], n)
	s.w.Write(s.buf)
}

func (s *stream) bytes(b []byte) {
	s.u64(uint64(len(b)))
	s.w.Write(b)
}

func (s *stream) str(v string) {
	s.buf = binary.BigEndian.AppendUint64(s.buf[:0], uint64(len(v)))
	s.buf = append(s.buf, v...)
	s.w.Write(s.buf)
}

// field writes one kind-tagged scalar declaration.
func (s *stream) field(tag, value string) {
	s.str(tag)
	s.str(value)
}

// list writes a kind-tagged, counted, sorted and deduplicated list of strings.
func (s *stream) list(tag string, items []string) {
	sorted := slices.Compact(slices.Sorted(slices.Values(items)))
	s.str(tag)
	s.u64(uint64(len(sorted)))
	for _, v := range sorted {
		s.str(v)
	}
}

// dependencies writes the kind-tagged, counted dependency map sorted by provider id.
func (s *stream) dependencies(deps map[string]string) {
	keys := make([]string, 0, len(deps))
	for k := range deps {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	s.str("dependencies")
	s.u64(uint64(len(keys)))
	for _, k := range keys {
		s.str(k)
		s.str(deps[k])
	}
}

// validFingerprint reports whether fp has the shape Fingerprint produces.
func validFingerprint(fp string) bool {
	hexPart, ok := strings.CutPrefix(fp, fingerprintPrefix)
	if !ok || len(hexPart) != 2*sha256.Size {
		return false
	}
	for i := 0; i < len(hexPart); i++ {
		c := hexPart[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
