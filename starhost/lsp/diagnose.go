package lsp

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/check"
)

// check runs `crystal-star check` on the plugin in dir with the editor's
// unsaved texts in place of the files, and publishes the diagnostics of
// every file of it, clearing those of files that have none now. The
// plugin is copied to a temporary directory with the unsaved texts written
// over; positions are mapped back to dir.
func (s *server) check(dir string) {
	s.runMu.Lock()
	defer s.runMu.Unlock()
	if s.ctx.Err() != nil {
		return
	}
	tmp, err := os.MkdirTemp("", "crystal-star-lsp-")
	if err != nil {
		return
	}
	defer os.RemoveAll(tmp)
	snap := filepath.Join(tmp, filepath.Base(dir))
	f := s.filesIn(dir)
	open := s.snapshot(f, snap)
	opts := s.opts.Check
	opts.Display = func(d string) string {
		if rel, err := filepath.Rel(snap, d); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.Join(dir, rel)
		}
		return d
	}
	r, err := check.Plugins(s.ctx, check.Options{Paths: []string{snap}, Options: opts, Workers: s.workers})
	if err != nil {
		return
	}
	byFile := map[string][]protocol.Diagnostic{}
	for _, d := range r.Diagnostics {
		path := filepath.FromSlash(d.Pos.File)
		text, _ := f.text(path)
		byFile[path] = append(byFile[path], toProtocol(d, text))
	}
	s.mu.Lock()
	before := s.published[dir]
	var now []string
	for path := range byFile {
		now = append(now, path)
	}
	s.published[dir] = now
	s.mu.Unlock()
	for _, path := range append(before, open...) {
		if _, ok := byFile[path]; !ok {
			byFile[path] = []protocol.Diagnostic{}
		}
	}
	for _, path := range slices.Sorted(maps.Keys(byFile)) {
		s.publish(path, byFile[path])
	}
}

// snapshot copies the plugin's bundle (what the host would activate,
// files) to snap with the editor's texts of its files written over, and
// returns the paths of its open documents.
func (s *server) snapshot(f *files, snap string) []string {
	dir := f.dir
	if b, err := f.bundle(); err == nil {
		for name, data := range b.Files() {
			dst := filepath.Join(snap, filepath.FromSlash(name))
			_ = os.MkdirAll(filepath.Dir(dst), 0o755)
			_ = os.WriteFile(dst, data, 0o644)
		}
	}
	_ = os.MkdirAll(snap, 0o755)
	var open []string
	s.mu.Lock()
	defer s.mu.Unlock()
	for path, text := range s.docs {
		if rel, err := filepath.Rel(dir, path); err == nil && !strings.HasPrefix(rel, "..") {
			dst := filepath.Join(snap, rel)
			_ = os.MkdirAll(filepath.Dir(dst), 0o755)
			_ = os.WriteFile(dst, []byte(text), 0o644)
			open = append(open, path)
		}
	}
	return open
}

// toProtocol converts a finding: its range covers the word or string at
// its position (one character when there is none).
func toProtocol(d starhost.Note, text string) protocol.Diagnostic {
	lines := strings.Split(text, "\n")
	line := ""
	if d.Pos.Line >= 1 && d.Pos.Line <= len(lines) {
		line = strings.TrimRight(lines[d.Pos.Line-1], "\r")
	}
	start := utf16Col(line, d.Pos.Col)
	b := byteOfUTF16(line, start)
	n := len(wordTail(line[b:]))
	if n == 0 && b < len(line) {
		if line[b] == '"' {
			if end := strings.IndexByte(line[b+1:], '"'); end >= 0 {
				n = end + 2
			}
		} else {
			n = 1
		}
	}
	end := start + len([]rune(line[b:b+n]))
	sev := protocol.DiagnosticSeverityError
	if d.Severity == starhost.SeverityWarning {
		sev = protocol.DiagnosticSeverityWarning
	}
	source := "crystal-star"
	return protocol.Diagnostic{
		Range: protocol.Range{
			Start: protocol.Position{Line: protocol.UInteger(max(d.Pos.Line-1, 0)), Character: protocol.UInteger(start)},
			End:   protocol.Position{Line: protocol.UInteger(max(d.Pos.Line-1, 0)), Character: protocol.UInteger(end)},
		},
		Severity: &sev,
		Code:     &protocol.IntegerOrString{Value: string(d.Code)},
		Source:   &source,
		Message:  d.Message,
	}
}
