package lsp

import (
	"errors"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// This file answers the requests on the author's code: signature help,
// references, rename (with prepareRename), over the bundle index.

func (s *server) signatureHelp(_ *glsp.Context, p *protocol.SignatureHelpParams) (*protocol.SignatureHelp, error) {
	path := pathOf(p.TextDocument.URI)
	ix, rel := s.indexOf(path, &p.Position)
	sig, ok := ix.signature(rel, s.text(path), int(p.Position.Line), int(p.Position.Character))
	if !ok {
		return nil, nil
	}
	info := protocol.SignatureInformation{Label: sig.Label}
	if sig.Doc != "" {
		info.Documentation = protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: sig.Doc}
	}
	for _, prm := range sig.Params {
		pi := protocol.ParameterInformation{Label: []protocol.UInteger{
			protocol.UInteger(utf16Len(sig.Label[:prm.Start])), protocol.UInteger(utf16Len(sig.Label[:prm.End]))}}
		if prm.Doc != "" {
			pi.Documentation = protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: prm.Doc}
		}
		info.Parameters = append(info.Parameters, pi)
	}
	zero := protocol.UInteger(0)
	help := &protocol.SignatureHelp{Signatures: []protocol.SignatureInformation{info}, ActiveSignature: &zero}
	if sig.Active >= 0 {
		active := protocol.UInteger(sig.Active)
		help.ActiveParameter = &active
	}
	return help, nil
}

// location is the protocol location of a reference.
func (ix *index) location(r ref) protocol.Location {
	line := ix.line(r.file, r.line-1)
	start := utf16Col(line, r.col)
	pos := func(c int) protocol.Position {
		return protocol.Position{Line: protocol.UInteger(r.line - 1), Character: protocol.UInteger(c)}
	}
	return protocol.Location{URI: uriOf(ix.abs(r.file)), Range: protocol.Range{Start: pos(start), End: pos(start + utf16Len(r.name))}}
}

func (s *server) references(_ *glsp.Context, p *protocol.ReferenceParams) ([]protocol.Location, error) {
	path := pathOf(p.TextDocument.URI)
	ix, rel := s.indexOf(path, nil)
	sym, _, ok := ix.symbolAt(rel, int(p.Position.Line), int(p.Position.Character))
	if !ok {
		return []protocol.Location{}, nil
	}
	out := []protocol.Location{}
	for i, r := range ix.references(sym) {
		if i == 0 && !p.Context.IncludeDeclaration && ix.isDeclaration(sym, r) {
			continue
		}
		out = append(out, ix.location(r))
	}
	return out, nil
}

// isDeclaration reports whether r is where sym is bound first.
func (ix *index) isDeclaration(sym symbol, r ref) bool {
	if sym.local != nil {
		return r.line == int(sym.local.NamePos.Line) && r.col == int(sym.local.NamePos.Col)
	}
	return r.file == sym.file
}

// errNotRenamable: the name at the cursor is not the author's.
var errNotRenamable = errors.New("only the plugin's own names (its top-level defs and variables, loaded names, parameters and locals) can be renamed; this is a predeclared name, a keyword or a field")

func (s *server) prepareRename(_ *glsp.Context, p *protocol.PrepareRenameParams) (any, error) {
	path := pathOf(p.TextDocument.URI)
	ix, rel := s.indexOf(path, nil)
	sym, id, ok := ix.symbolAt(rel, int(p.Position.Line), int(p.Position.Character))
	if !ok {
		return nil, errNotRenamable
	}
	if sym.loaded {
		_, err := ix.renameEdits(sym, sym.name)
		return nil, err
	}
	loc := ix.location(ref{file: rel, line: int(id.NamePos.Line), col: int(id.NamePos.Col), name: id.Name})
	return protocol.RangeWithPlaceholder{Range: loc.Range, Placeholder: id.Name}, nil
}

func (s *server) rename(_ *glsp.Context, p *protocol.RenameParams) (*protocol.WorkspaceEdit, error) {
	path := pathOf(p.TextDocument.URI)
	ix, rel := s.indexOf(path, nil)
	sym, _, ok := ix.symbolAt(rel, int(p.Position.Line), int(p.Position.Character))
	if !ok {
		return nil, errNotRenamable
	}
	refs, err := ix.renameEdits(sym, p.NewName)
	if err != nil {
		return nil, err
	}
	changes := map[protocol.DocumentUri][]protocol.TextEdit{}
	for _, r := range refs {
		loc := ix.location(r)
		changes[loc.URI] = append(changes[loc.URI], protocol.TextEdit{Range: loc.Range, NewText: p.NewName})
	}
	return &protocol.WorkspaceEdit{Changes: changes}, nil
}
