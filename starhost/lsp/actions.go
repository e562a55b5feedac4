package lsp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"

	protocol "github.com/tliron/glsp/protocol_3_16"
	"go.starlark.net/syntax"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/starhost/format"
)

// This file turns the fixes `crystal-star check` suggests into code
// actions on the diagnostics the editor sends back: a "did you mean" is
// written in place of the misspelled name or value (contrib.Suggested reads
// contrib.DidYouMean's words); a ctx field that needs a capability adds it
// to plugin.toml; a callback given as a string is given as the function; a
// style warning buildifier can fix is fixed (format.FixStyle).

// codeActionParams are textDocument/codeAction's parameters, decoded here
// rather than by glsp: glsp's Diagnostic.Code cannot be decoded (its
// UnmarshalJSON has a value receiver), and the code is what says which fix.
type codeActionParams struct {
	TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
	Context      struct {
		Diagnostics []actionDiagnostic `json:"diagnostics"`
	} `json:"context"`
}

// actionDiagnostic is a diagnostic the editor sends back.
type actionDiagnostic struct {
	Range   protocol.Range `json:"range"`
	Code    any            `json:"code"`
	Source  string         `json:"source"`
	Message string         `json:"message"`
}

func (d actionDiagnostic) code() string { s, _ := d.Code.(string); return s }

// codeAction answers textDocument/codeAction.
func (s *server) codeAction(raw json.RawMessage) (any, error) {
	var p codeActionParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	path := pathOf(p.TextDocument.URI)
	text := s.text(path)
	out := []protocol.CodeAction{}
	for _, d := range p.Context.Diagnostics {
		if d.Source != "crystal-star" {
			continue
		}
		if a, ok := s.fixOf(path, text, d); ok {
			out = append(out, a)
		}
		if d.code() == string(contrib.StatusFieldUnknown) {
			if a, ok := s.declareStatusField(path, text, d); ok {
				out = append(out, a)
			}
		}
	}
	return out, nil
}

var quickFix = protocol.CodeActionKindQuickFix

// fixOf is the code action of one diagnostic, if check suggested a fix.
func (s *server) fixOf(path, text string, d actionDiagnostic) (protocol.CodeAction, bool) {
	line := lineOf(text, int(d.Range.Start.Line))
	start, end := byteOfUTF16(line, int(d.Range.Start.Character)), byteOfUTF16(line, int(d.Range.End.Character))
	if d.Range.End.Line != d.Range.Start.Line || end < start {
		end = start
	}
	word := line[start:end]
	edit := func(title string, r protocol.Range, newText string) protocol.CodeAction {
		yes := true
		return protocol.CodeAction{Title: title, Kind: &quickFix, IsPreferred: &yes,
			Edit: &protocol.WorkspaceEdit{Changes: map[protocol.DocumentUri][]protocol.TextEdit{
				uriOf(path): {{Range: r, NewText: newText}}}}}
	}
	switch {
	case d.code() == string(contrib.CapabilityMissing):
		m := builtins.LookupCtxMember(word)
		if m == nil || m.Capability == "" {
			return protocol.CodeAction{}, false
		}
		return s.addCapability(path, m.Capability)
	case d.code() == string(contrib.ArgumentInvalid) && strings.Contains(d.Message, "without quotes"):
		name, err := strconv.Unquote(word)
		if err != nil || !isIdent(name) {
			return protocol.CodeAction{}, false
		}
		return edit("Pass the function "+name+", not the string "+word, d.Range, name), true
	case strings.HasPrefix(d.code(), "Style"):
		out, ok := format.FixStyle(filepath.Base(path), []byte(text), contrib.Code(d.code()))
		if !ok {
			return protocol.CodeAction{}, false
		}
		whole := protocol.Range{End: protocol.Position{Line: protocol.UInteger(strings.Count(text, "\n") + 1)}}
		return edit("Fix every "+d.code()+" of the file (and format it)", whole, string(out)), true
	}
	want, ok := contrib.Suggested(d.Message)
	if !ok {
		return protocol.CodeAction{}, false
	}
	b, e, quoted, ok := misspelled(line, start, want)
	if !ok {
		return protocol.CodeAction{}, false
	}
	r := protocol.Range{
		Start: protocol.Position{Line: d.Range.Start.Line, Character: protocol.UInteger(utf16Len(line[:b]))},
		End:   protocol.Position{Line: d.Range.Start.Line, Character: protocol.UInteger(utf16Len(line[:e]))},
	}
	title := "Change to " + want
	if quoted {
		title = fmt.Sprintf("Change to %q", want)
	}
	return edit(title, r, want), true
}

var tokenRE = regexp.MustCompile(`"([^"\\]*)"|'([^'\\]*)'|[A-Za-z_][A-Za-z0-9_]*`)

// misspelled finds, on line from byte from on (else anywhere on the line),
// the name or string content that want is the "did you mean" of: its byte
// range (a string's content, without quotes).
func misspelled(line string, from int, want string) (start, end int, quoted, ok bool) {
	for _, m := range tokenRE.FindAllStringSubmatchIndex(line, -1) {
		s, e, q := m[0], m[1], false
		if m[2] >= 0 {
			s, e, q = m[2], m[3], true
		} else if m[4] >= 0 {
			s, e, q = m[4], m[5], true
		}
		if contrib.Nearest(line[s:e], []string{want}) != want {
			continue
		}
		if !ok || m[0] >= from {
			start, end, quoted, ok = s, e, q, true
		}
		if m[0] >= from {
			break
		}
	}
	return start, end, quoted, ok
}

// utf16Len is the length of s in UTF-16 code units, LSP's unit.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

var capabilitiesLine = regexp.MustCompile(`^(\s*capabilities\s*=\s*\[)([^\]]*)(\].*)$`)

// addCapability is the action that adds capability to the plugin's
// plugin.toml: to its capabilities list, or as a new key before the first
// table.
func (s *server) addCapability(path, capability string) (protocol.CodeAction, bool) {
	f := s.filesOf(path)
	if f.dir == "" {
		return protocol.CodeAction{}, false
	}
	manifest := filepath.Join(f.dir, "plugin.toml")
	text, ok := f.text(manifest)
	if !ok {
		return protocol.CodeAction{}, false
	}
	lines := strings.Split(text, "\n")
	var e protocol.TextEdit
	found := false
	for i, l := range lines {
		if m := capabilitiesLine.FindStringSubmatch(strings.TrimRight(l, "\r")); m != nil {
			if strings.Contains(m[2], strconv.Quote(capability)) {
				return protocol.CodeAction{}, false
			}
			list := strings.TrimSpace(m[2])
			if list != "" && !strings.HasSuffix(list, ",") {
				list += ", "
			}
			l = strings.TrimRight(l, "\r")
			e = protocol.TextEdit{Range: protocol.Range{Start: protocol.Position{Line: protocol.UInteger(i)},
				End: protocol.Position{Line: protocol.UInteger(i), Character: protocol.UInteger(utf16Len(l))}},
				NewText: m[1] + list + strconv.Quote(capability) + m[3]}
			found = true
			break
		}
		if strings.HasPrefix(strings.TrimSpace(l), "[") {
			break // top-level keys come before the first table
		}
	}
	if !found {
		at := len(lines)
		for i, l := range lines {
			if strings.HasPrefix(strings.TrimSpace(l), "[") {
				at = i
				break
			}
		}
		newText := "capabilities = [" + strconv.Quote(capability) + "]\n"
		pos := protocol.Position{Line: protocol.UInteger(at)}
		if at == len(lines) { // no table: at the end
			pos.Line = protocol.UInteger(len(lines) - 1)
			if last := lines[len(lines)-1]; last != "" {
				pos.Character, newText = protocol.UInteger(utf16Len(strings.TrimRight(last, "\r"))), "\n"+newText
			}
		}
		e = protocol.TextEdit{Range: protocol.Range{Start: pos, End: pos}, NewText: newText}
	}
	yes := true
	return protocol.CodeAction{Title: fmt.Sprintf("Add %q to capabilities in plugin.toml", capability), Kind: &quickFix, IsPreferred: &yes,
		Edit: &protocol.WorkspaceEdit{Changes: map[protocol.DocumentUri][]protocol.TextEdit{uriOf(manifest): {e}}}}, true
}

// declareStatusField is the action that declares the status field a
// status.set("name", …) names: status_field(name = "name") added to the
// status_fields list of contribute(), or the list added to it.
func (s *server) declareStatusField(path, text string, d actionDiagnostic) (protocol.CodeAction, bool) {
	line := lineOf(text, int(d.Range.Start.Line))
	word := line[byteOfUTF16(line, int(d.Range.Start.Character)):byteOfUTF16(line, int(d.Range.End.Character))]
	name, err := strconv.Unquote(word)
	if err != nil || name == "" {
		return protocol.CodeAction{}, false
	}
	ix, _ := s.indexOf(path, nil)
	file, call := ix.contributeCall()
	if call == nil {
		return protocol.CodeAction{}, false
	}
	entry := "status_field(name = " + strconv.Quote(name) + ")"
	var at syntax.Position
	insert := ""
	for _, arg := range call.Args {
		b, ok := arg.(*syntax.BinaryExpr)
		if !ok || b.Op != syntax.EQ {
			continue
		}
		if kw, _ := b.X.(*syntax.Ident); kw == nil || kw.Name != "status_fields" {
			continue
		}
		list, ok := b.Y.(*syntax.ListExpr)
		if !ok {
			return protocol.CodeAction{}, false
		}
		if len(list.List) == 0 {
			at, insert = list.Rbrack, entry
		} else {
			_, at = list.List[len(list.List)-1].Span()
			insert = ", " + entry
		}
	}
	l := ix.line(file, int(call.Lparen.Line)-1)
	if insert == "" {
		at, insert = call.Lparen, "status_fields = ["+entry+"]"
		at.Col++
		switch {
		case len(call.Args) == 0:
		case strings.TrimSpace(string([]rune(l)[at.Col-1:])) == "": // arguments one per line
			insert = "\n    " + insert + ","
		default:
			insert += ", "
		}
	}
	l = ix.line(file, int(at.Line)-1)
	pos := protocol.Position{Line: protocol.UInteger(at.Line - 1), Character: protocol.UInteger(utf16Col(l, int(at.Col)))}
	return protocol.CodeAction{Title: "Declare the status field " + strconv.Quote(name), Kind: &quickFix,
		Edit: &protocol.WorkspaceEdit{Changes: map[protocol.DocumentUri][]protocol.TextEdit{
			uriOf(ix.abs(file)): {{Range: protocol.Range{Start: pos, End: pos}, NewText: insert}}}}}, true
}
