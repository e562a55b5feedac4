package main

import (
	"io"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"unicode/utf8"
)

// output is one of the CLI's text streams: stdout, stderr, the dev
// console's --log file. Everything a command prints goes through one, and
// Write makes it terminal-safe with the one sanitiser (safe: control
// characters, escape sequences and bidi controls shown escaped as `\x1b`,
// `\u202e`; newlines and tabs kept). So no printing path — a plugin's
// description or argument hint, a repository's directory name, an error
// message, a path — can reach the terminal raw, whether or not the code
// that prints it remembered to escape it. JSON goes through writeJSON,
// which escapes the same characters as JSON `\u` escapes, so the values
// stay intact for a program. The CLI's own colours are the only bytes
// written raw (println of a line with a colour). A protocol spoken on
// stdout (mcp, lsp) is not text: it takes unsanitised.
// TestH24_4_OutputOnlyThroughTheSanitiser keeps every other way out of the
// package. An output is safe for concurrent use.
type output struct {
	mu     sync.Mutex
	dest   io.Writer // the stream written to: the process's, or readline's prompt writer
	colour bool      // whether println colours (--color, style)
}

func newOutput(w io.Writer) *output { return &output{dest: w} }

// Write writes p made terminal-safe. A caller writes whole runes (every
// printing path writes whole strings); a rune split across two writes is
// shown as escaped bytes, never raw.
func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, err := io.WriteString(o.dest, safe(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// sgr is an ANSI colour sequence of the CLI's own (style.go's constants):
// the one kind of value println writes raw.
type sgr string

// line is one line of output, with an optional span to colour.
type line struct {
	text     string
	from, to int // the coloured span of text, when colour is set
	colour   sgr
}

// println writes l and a newline: text safe as Write makes it, the span in
// l's colour when the stream is coloured.
func (o *output) println(l line) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.colour || l.colour == "" || l.from >= l.to {
		io.WriteString(o.dest, safe(l.text)+"\n")
		return
	}
	io.WriteString(o.dest, safe(l.text[:l.from])+string(l.colour)+safe(l.text[l.from:l.to])+
		string(ansiReset)+safe(l.text[l.to:])+"\n")
}

// writeJSON writes JSON text with every character the sanitiser would
// escape (DEL, C1 and bidi controls, the line separators) written as a JSON
// `\u` escape instead: the same values for a program, nothing raw for a
// terminal. (encoding/json escapes the C0 controls itself, not these.)
func (o *output) writeJSON(data []byte) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	_, err := io.WriteString(o.dest, jsonSafe(string(data)))
	return err
}

// jsonSafe escapes, inside JSON text, what safe would change.
func jsonSafe(s string) string {
	if safe(s) == s {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch c := s[i]; {
		case c == '\n' || c == '\t' || c >= 0x20 && c < 0x7f:
			b.WriteByte(c)
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\ufffd`)
		case safe(s[i:i+size]) != s[i:i+size] || c < 0x20 || c == 0x7f:
			q := strconv.FormatInt(int64(r), 16)
			b.WriteString(`\u` + strings.Repeat("0", 4-len(q)) + q)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// terminal reports whether the stream is a terminal.
func (o *output) terminal() bool { return isTerminal(o.dest) }

// through makes the stream write through wrap(dest) from now on (the dev
// console's prompt writer).
func (o *output) through(wrap func(io.Writer) io.Writer) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.dest = wrap(o.dest)
}

// unsanitised is the stream itself, for what is not text for a terminal
// and escapes its own: a protocol spoken on it (MCP, LSP: their framing and
// JSON) and readline's drawing of the prompt it edits.
func (o *output) unsanitised() io.Writer {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.dest
}

// table lines up columns of text a plugin or a repository may have
// written. It escapes each row before the tabwriter measures it, so a
// column is as wide as what the terminal shows (`\x1b` is four columns),
// not as the raw bytes were; the output stream's own pass then finds
// nothing left to escape.
type table struct{ *tabwriter.Writer }

// newTable returns a table writing to w, with the CLI's one spacing.
func newTable(w io.Writer) table { return table{tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)} }

// Write escapes p and hands it to the tabwriter.
func (t table) Write(p []byte) (int, error) {
	if _, err := t.Writer.Write([]byte(safe(string(p)))); err != nil {
		return 0, err
	}
	return len(p), nil
}
