package trust

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/crystal-star/crystal-star/internal/safefile"
)

// unreadableError reports a trust file that exists but cannot be read or parsed, or that
// has a version this host does not understand. It names the file. The store never
// overwrites such a file: a grant written over it would silently drop every grant the
// operator cannot see any more.
type unreadableError struct {
	Path string // the trust file
	Err  error  // the cause; a syntax error carries its line and column
}

// Error says which file is unreadable, why, and what to do.
func (e *unreadableError) Error() string {
	return fmt.Sprintf("trust file %s is unreadable: %v; fix or remove it by hand", e.Path, e.Err)
}

// Unwrap returns the cause, so errors.As reaches a *json.SyntaxError or an fs error.
func (e *unreadableError) Unwrap() error { return e.Err }

// Store reads and writes one trust file ({home}/plugin-trust.json, DC19). A Store holds
// only the path; it is safe for concurrent use by goroutines and by processes: Grant and
// Revoke serialise on a sibling lock file, and Load always sees a complete file because
// writes are atomic.
type Store struct {
	path string
}

// NewStore returns a store for the trust file at path. Nothing is read or created until a
// method is called. The caller picks the path; it must be the home's trust file, never a
// file inside a workspace (DC19).
func NewStore(path string) *Store {
	return &Store{path: path}
}

// Path returns the trust file's path.
func (s *Store) Path() string { return s.path }

// lockPath is the sibling file Grant and Revoke lock.
func (s *Store) lockPath() string { return s.path + ".lock" }

// Load reads the trust file. A missing file is an empty File{Version: 1}. A file that
// cannot be read, is not valid JSON, has unknown keys, trailing data, a version other
// than 1, or a grant without id or fingerprint yields an *unreadableError.
func (s *Store) Load() (*File, error) {
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return &File{Version: fileVersion, Grants: []Grant{}}, nil
	}
	if err != nil {
		return nil, &unreadableError{Path: s.path, Err: err}
	}
	f, err := decodeFile(data)
	if err != nil {
		return nil, &unreadableError{Path: s.path, Err: err}
	}
	return f, nil
}

// ErrNoChange is what Grant and Revoke return, writing nothing, when the
// trust file already says what they were asked to make it say. Test it with
// errors.Is; a caller usually reports it as no_change, not as a failure.
var ErrNoChange = errors.New("no change")

// Grant records (id, fingerprint) as trusted, stamped with now (UTC, whole seconds). It
// returns nil exactly when it wrote the grant: ErrNoChange, without writing, when the pair
// is already granted; any other error when nothing was written either. It creates the
// trust file's directory if needed. If the existing file is unreadable it returns the
// *unreadableError. fingerprint must have the form Fingerprint returns.
func (s *Store) Grant(id, fingerprint string, now time.Time) error {
	if id == "" {
		return errors.New("grant: empty plugin id")
	}
	if !validFingerprint(fingerprint) {
		return fmt.Errorf("grant %s: malformed fingerprint %q (want sha256: and 64 lowercase hex digits)", id, fingerprint)
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("grant %s: %w", id, err)
	}
	stamp := now.UTC().Truncate(time.Second)
	return changed(s.update(func(f *File) bool { return f.add(id, fingerprint, stamp) }))
}

// Revoke removes exactly (id, fingerprint); other grants of the id stay (DC21). It returns
// nil exactly when it removed the grant: ErrNoChange, without writing, when the pair is
// not granted, including when the trust file or its directory does not exist; any other
// error when nothing was written either (the *unreadableError for an unreadable file).
// Stopping a generation that depended on the grant is the caller's job.
func (s *Store) Revoke(id, fingerprint string) error {
	if _, err := os.Stat(filepath.Dir(s.path)); errors.Is(err, fs.ErrNotExist) {
		return ErrNoChange
	}
	return changed(s.update(func(f *File) bool { return f.remove(id, fingerprint) }))
}

// changed is update's answer as one error: ErrNoChange when nothing needed
// writing.
func changed(applied bool, err error) error {
	if err == nil && !applied {
		return ErrNoChange
	}
	return err
}

// update runs one locked read-modify-write: lock, re-read inside the lock, change, write
// atomically, unlock. change reports whether it changed anything; if not, nothing is
// written.
func (s *Store) update(change func(*File) bool) (applied bool, err error) {
	unlock, err := safefile.Lock(s.lockPath())
	if err != nil {
		return false, err
	}
	defer func() { err = errors.Join(err, unlock()) }()

	f, err := s.Load()
	if err != nil {
		return false, err
	}
	if !change(f) {
		return false, nil
	}
	data, err := encodeFile(f)
	if err != nil {
		return false, err
	}
	if err := safefile.WriteFile(s.path, data, 0o600); err != nil {
		return false, err
	}
	return true, nil
}

// decodeFile parses trust file bytes strictly.
func decodeFile(data []byte) (*File, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f File
	if err := dec.Decode(&f); err != nil {
		return nil, positioned(data, err)
	}
	rest := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n")
	if len(rest) > 0 {
		return nil, fmt.Errorf("%s: unexpected data after the JSON object", position(data, int64(len(data)-len(rest))))
	}
	if f.Version != fileVersion {
		return nil, fmt.Errorf("version %d is not supported (this host reads version %d)", f.Version, fileVersion)
	}
	for i, g := range f.Grants {
		if g.ID == "" || g.Fingerprint == "" {
			return nil, fmt.Errorf("grant %d has an empty id or fingerprint", i)
		}
	}
	if f.Grants == nil {
		f.Grants = []Grant{}
	}
	return &f, nil
}

// encodeFile renders f in its written form: normalised, indented, newline-terminated.
func encodeFile(f *File) ([]byte, error) {
	f.normalize()
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode trust file: %w", err)
	}
	return append(data, '\n'), nil
}

// positioned adds the line and column to JSON errors that carry a byte offset. encoding/json
// reports the count of bytes read, so the offending byte is the one before it.
func positioned(data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return errors.New("the file is empty")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s: unexpected end of file", position(data, int64(len(data))))
	case errors.As(err, &syn):
		return fmt.Errorf("%s: %w", position(data, syn.Offset-1), err)
	case errors.As(err, &typ):
		return fmt.Errorf("%s: %w", position(data, typ.Offset-1), err)
	}
	return err
}

// position renders the 0-based byte offset of a byte as "line L, column C (offset O)", with
// 1-based lines and columns; columns count bytes.
func position(data []byte, offset int64) string {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line := bytes.Count(before, []byte{'\n'}) + 1
	col := len(before) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return fmt.Sprintf("line %d, column %d (offset %d)", line, col, offset)
}
