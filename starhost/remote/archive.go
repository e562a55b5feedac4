package remote

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/crystal-star/crystal-star/lifecycle"
	"github.com/crystal-star/crystal-star/trust"
)

// MaxArchiveBytes bounds an archive an executor reads: 64 MiB.
const MaxArchiveBytes = 64 << 20

// Archive is one packed plugin bundle: a tar of the bundle's files, named
// by the bundle's trust fingerprint (the one `trust grant` records).
type Archive struct {
	Plugin, Version string
	// Fingerprint is "sha256:" + hex, as trust grants it.
	Fingerprint string
	// Data is the tar: regular files only, sorted by path, no times or
	// owners, so the same bundle always packs to the same bytes.
	Data []byte
	// Files are the bundle's files, by slash-separated path.
	Files map[string][]byte
}

// FileName is the archive's name on disk and in upload URLs:
// "sha256-<hex>.tar" (a colon is not portable in file names).
func (a Archive) FileName() string { return FileName(a.Fingerprint) }

// FileName returns the archive name of fingerprint fp.
func FileName(fp string) string { return strings.Replace(fp, ":", "-", 1) + ".tar" }

// FingerprintOf returns the fingerprint an archive name stands for, or ""
// when name is not one.
func FingerprintOf(name string) string {
	hex, ok := strings.CutPrefix(strings.TrimSuffix(name, ".tar"), "sha256-")
	if !ok || len(hex) != 64 || strings.Trim(hex, "0123456789abcdef") != "" || !strings.HasSuffix(name, ".tar") {
		return ""
	}
	return "sha256:" + hex
}

// Pack reads the plugin directory dir as the host would snapshot it and
// packs it.
func Pack(dir string) (Archive, error) {
	b, err := lifecycle.ReadBundle(dir)
	if err != nil {
		return Archive{}, err
	}
	return PackFiles(b.Files())
}

// PackFiles packs a bundle's files (plugin.toml among them). Paths the
// fingerprint does not cover (.git, desktop/, .builtin) stay out.
func PackFiles(files map[string][]byte) (Archive, error) {
	a, err := describe(files)
	if err != nil {
		return Archive{}, err
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, p := range slices.Sorted(maps.Keys(a.Files)) {
		hdr := &tar.Header{Name: p, Mode: 0o644, Size: int64(len(a.Files[p])), Typeflag: tar.TypeReg, ModTime: time.Unix(0, 0), Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return Archive{}, err
		}
		if _, err := tw.Write(a.Files[p]); err != nil {
			return Archive{}, err
		}
	}
	if err := tw.Close(); err != nil {
		return Archive{}, err
	}
	a.Data = buf.Bytes()
	return a, nil
}

// describe parses the manifest among files and fingerprints them.
func describe(files map[string][]byte) (Archive, error) {
	kept := map[string][]byte{}
	for p, data := range files {
		if p == "plugin.toml" || !uncovered(p) {
			kept[p] = data
		}
	}
	data, ok := kept["plugin.toml"]
	if !ok {
		return Archive{}, errors.New("the bundle has no plugin.toml")
	}
	m, diags := lifecycle.ParseManifest("plugin.toml", data, "")
	if m == nil || len(diags) > 0 {
		msg := "plugin.toml is invalid"
		if len(diags) > 0 {
			msg = diags[0].Message
		}
		return Archive{}, errors.New(msg)
	}
	fp := lifecycle.Fingerprint(m, lifecycle.NewBundle(kept))
	return Archive{Plugin: m.ID, Version: m.Version, Fingerprint: fp, Files: kept}, nil
}

// uncovered reports whether the trust fingerprint leaves path out (besides
// plugin.toml, whose declarations it hashes): such a file could change
// without changing the name, so an archive never carries one.
func uncovered(p string) bool {
	return p == ".builtin" || strings.HasPrefix(p, "desktop/") || strings.HasPrefix(p, ".git/") || strings.Contains(p, "/.git/")
}

// Open reads an archive uploaded as name ("sha256-<hex>.tar") and checks
// that its bytes are a bundle whose fingerprint is that name. It runs
// nothing; a tampered, malformed or oversized archive is an error saying
// why.
func Open(name string, data []byte) (Archive, error) {
	want := FingerprintOf(name)
	if want == "" {
		return Archive{}, fmt.Errorf("%q is not an archive name (want sha256-<64 hex>.tar)", name)
	}
	if len(data) > MaxArchiveBytes {
		return Archive{}, fmt.Errorf("the archive is %d bytes, over the %d-byte limit", len(data), MaxArchiveBytes)
	}
	files := map[string][]byte{}
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return Archive{}, fmt.Errorf("the archive is not a tar: %v", err)
		}
		p := hdr.Name
		switch {
		case hdr.Typeflag != tar.TypeReg:
			return Archive{}, fmt.Errorf("the archive holds %s, which is not a regular file", p)
		case p == "" || path.IsAbs(p) || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../"):
			return Archive{}, fmt.Errorf("the archive holds the path %q, outside the bundle", p)
		case uncovered(p):
			return Archive{}, fmt.Errorf("the archive holds %s, which the fingerprint does not cover", p)
		}
		if _, dup := files[p]; dup {
			return Archive{}, fmt.Errorf("the archive holds %s twice", p)
		}
		body, err := io.ReadAll(io.LimitReader(tr, MaxArchiveBytes+1))
		if err != nil {
			return Archive{}, fmt.Errorf("the archive is not a tar: %v", err)
		}
		files[p] = body
	}
	a, err := describe(files)
	if err != nil {
		return Archive{}, err
	}
	if a.Fingerprint != want {
		return Archive{}, fmt.Errorf("the archive's bytes hash to %s, not to its name %s: it was altered", a.Fingerprint, want)
	}
	a.Data = data
	return a, nil
}

// Granted reports whether the trust file at trustPath grants plugin its
// exact fingerprint fp, and why not when it does not.
func Granted(trustPath, plugin, fp string) error {
	f, err := trust.NewStore(trustPath).Load()
	if err != nil {
		return fmt.Errorf("the executor's trust file is unreadable: %v", err)
	}
	if v := f.Verdict(plugin, fp); v != trust.Trusted {
		return fmt.Errorf("fingerprint %s of %s is not granted by this executor's operator (%s)", fp, plugin, v)
	}
	return nil
}
