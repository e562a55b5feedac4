package lsp

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/docs"
	"github.com/crystal-star/crystal-star/starhost/check"
)

// This file answers hover and completion from the same tables check uses
// (builtins.Signatures, builtins.CtxMembers, contrib.Hooks) and the text
// of docs/api.md. It reads the line around the cursor rather than a syntax
// tree: the document being edited rarely parses.

// cursor is the text around a position: the line before and after it.
type cursor struct {
	text   string // the whole document
	before string // the line up to the cursor
	after  string // the rest of the line
	offset int    // byte offset of the cursor in text
}

// cursorAt returns the cursor at a 0-based line and UTF-16 character.
func cursorAt(text string, line, char int) cursor {
	lines := strings.SplitAfter(text, "\n")
	off := 0
	for i := 0; i < line && i < len(lines); i++ {
		off += len(lines[i])
	}
	cur := ""
	if line < len(lines) {
		cur = strings.TrimRight(lines[line], "\r\n")
	}
	b := byteOfUTF16(cur, char)
	return cursor{text: text, before: cur[:b], after: cur[b:], offset: off + b}
}

// byteOfUTF16 returns the byte offset in line of UTF-16 offset char.
func byteOfUTF16(line string, char int) int {
	n := 0
	for i, r := range line {
		if n >= char {
			return i
		}
		n += len(utf16.Encode([]rune{r}))
	}
	return len(line)
}

// utf16Col returns the 0-based UTF-16 column of the 1-based rune column col.
func utf16Col(line string, col int) int {
	n, i := 0, 1
	for _, r := range line {
		if i >= col {
			break
		}
		n += len(utf16.Encode([]rune{r}))
		i++
	}
	return n
}

func isWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// word returns the identifier the cursor is in (or just after), with the
// dotted chain before it: "ctx.session.model" gives ["ctx", "session",
// "model"].
func (c cursor) word() []string {
	start := strings.LastIndexFunc(c.before, func(r rune) bool { return !isWord(r) && r != '.' }) + 1
	end := strings.IndexFunc(c.after, func(r rune) bool { return !isWord(r) })
	if end < 0 {
		end = len(c.after)
	}
	w := c.before[start:] + c.after[:end]
	if w == "" {
		return nil
	}
	return strings.Split(w, ".")
}

// enclosingCall returns the name of the call whose argument list holds the
// cursor, looking back over the document, and whether the cursor is at a
// keyword position (after "(" or "," with only a partial name typed).
func (c cursor) enclosingCall() (name string, atKeyword bool) {
	text := c.text[:c.offset]
	inString := strings.Count(c.before, `"`)%2 == 1
	typed := strings.LastIndexFunc(text, func(r rune) bool { return !isWord(r) })
	prev := strings.TrimRightFunc(text[:typed+1], unicode.IsSpace)
	atKeyword = !inString && (strings.HasSuffix(prev, "(") || strings.HasSuffix(prev, ","))
	name, open, nested := c.callOpen()
	if open < 0 {
		return "", false
	}
	return name, atKeyword && !nested
}

// callOpen finds the "(" of the call whose argument list holds the cursor:
// the callee as written (a.b.c), the offset of "(" (-1 when there is
// none), and whether the cursor is inside a list or dict argument.
func (c cursor) callOpen() (name string, open int, nested bool) {
	depth := 0
	text := c.text[:c.offset]
	for i := len(text) - 1; i >= 0; i-- {
		switch text[i] {
		case ')', ']', '}':
			depth++
		case '[', '{':
			if depth == 0 {
				nested = true
			} else {
				depth--
			}
		case '(':
			if depth > 0 {
				depth--
				continue
			}
			j := strings.LastIndexFunc(text[:i], func(r rune) bool { return !isWord(r) && r != '.' })
			return text[j+1 : i], i, nested
		}
	}
	return "", -1, false
}

// Hover returns Markdown documentation for the name at the cursor: a
// constructor, a constructor keyword, a ctx field or member, a hook event,
// another predeclared name; "" when there is nothing to say.
func Hover(text string, line, char int) string {
	c := cursorAt(text, line, char)
	chain := c.word()
	if len(chain) == 0 {
		return ""
	}
	last := chain[len(chain)-1]
	if len(chain) > 1 && chain[0] == "ctx" {
		return ctxHover(chain[1:])
	}
	if len(chain) == 1 && last == "ctx" {
		return ctxRootHover(nil, "")
	}
	if call, _ := c.enclosingCall(); call != "" && strings.HasPrefix(strings.TrimSpace(c.after[len(wordTail(c.after)):]), "=") {
		if sig := builtins.LookupSignature(call); sig != nil {
			if p := sig.Param(last); p != nil {
				return "`" + call + "(" + p.Name + " = ...)`: " + string(p.Kind) + "\n\n" + p.Doc + valuesDoc(p)
			}
		}
	}
	if sig := builtins.LookupSignature(last); sig != nil && len(chain) == 1 {
		return signatureDoc(sig)
	}
	if h := contrib.LookupHook(contrib.HookEvent(last)); h != nil {
		kind := "hook event"
		if h.Raw {
			kind = "raw hook event"
		}
		return "`" + last + "` (" + kind + "): " + h.Powers
	}
	if doc := targetDoc(last); doc != "" && len(chain) == 1 {
		return doc
	}
	if len(chain) == 1 && builtins.IsPredeclared(last) {
		if s := apiSection(last); s != "" {
			return s
		}
		return "`" + last + "`: predeclared"
	}
	return ""
}

func wordTail(s string) string {
	end := strings.IndexFunc(s, func(r rune) bool { return !isWord(r) })
	if end < 0 {
		return s
	}
	return s[:end]
}

func valuesDoc(p *builtins.Param) string {
	if len(p.Values) == 0 {
		return ""
	}
	return "\n\nOne of: `" + strings.Join(p.Values, "`, `") + "`"
}

// signatureDoc is a constructor's hover: its keywords, its table doc and
// its section of docs/api.md.
func signatureDoc(sig *builtins.Signature) string {
	var b strings.Builder
	b.WriteString("```python\n" + sig.Name + "(" + strings.Join(sig.ParamNames(), ", ") + ")\n```\n\n" + sig.Doc + "\n")
	for _, p := range sig.Params {
		req := ""
		if p.Required {
			req = " (required)"
		}
		b.WriteString("\n- `" + p.Name + "`" + req + ": " + p.Doc)
	}
	if s := apiSection(sig.Name); s != "" {
		b.WriteString("\n\n---\n\n" + s)
	}
	return b.String()
}

// ctxHover documents ctx.a.b: the member, its members, its capability and
// the docs/api.md section that describes it.
func ctxHover(chain []string) string {
	m := builtins.LookupCtxMember(chain[0])
	path := "ctx." + chain[0]
	for _, name := range chain[1:] {
		if m == nil {
			break
		}
		m = m.Member(name)
		path += "." + name
	}
	if m == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("`" + path + "`: " + m.Doc)
	if m.Capability != "" {
		b.WriteString("\n\nNeeds `capabilities = [\"" + m.Capability + "\"]` in plugin.toml.")
	}
	if len(m.Kinds) > 0 {
		var ks []string
		for _, k := range m.Kinds {
			ks = append(ks, string(k))
		}
		b.WriteString("\n\nOnly in the ctx of: " + strings.Join(ks, ", ") + ".")
	}
	if len(m.Members) > 0 {
		var names []string
		for _, s := range m.Members {
			names = append(names, "`"+s.Name+"`")
		}
		b.WriteString("\n\nMembers: " + strings.Join(names, ", "))
	}
	if s := apiSection("ctx." + chain[0]); s != "" {
		b.WriteString("\n\n---\n\n" + s)
	}
	return b.String()
}

// ctxRootHover documents the bare ctx (a callback's first parameter, by
// convention): its members and the docs/api.md section on ctx.
// With kinds, it is the ctx of a callback of those kinds (serves says which)
// and lists only their fields.
func ctxRootHover(kinds []builtins.CtxKind, serves string) string {
	var names []string
	for _, m := range check.CtxFields(kinds) {
		names = append(names, "`"+m.Name+"`")
	}
	doc := "`ctx`: the context of this run, the first parameter of every callback: what the host passes in (session, environment, services, data...).\n\nMembers: " + strings.Join(names, ", ")
	if serves != "" { // "Serves as a tool's run. Its ctx has ..."
		doc = "`ctx`: the context of this run. This function s" + serves[1:]
	}
	if s := apiSection("ctx"); s != "" {
		doc += "\n\n---\n\n" + s
	}
	return doc
}

// apiSections maps each "## name" heading of docs/api.md (each name of a
// heading such as "hook and raw_hook") to its text.
var apiSections = sync.OnceValue(func() map[string]string {
	out := map[string]string{}
	heading := regexp.MustCompile(`(?m)^## (.+)$`)
	locs := heading.FindAllStringSubmatchIndex(docs.APIReference, -1)
	for i, loc := range locs {
		end := len(docs.APIReference)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		body := strings.TrimSpace(docs.APIReference[loc[0]:end])
		for _, name := range strings.FieldsFunc(docs.APIReference[loc[2]:loc[3]], func(r rune) bool { return r == ' ' || r == '`' }) {
			if name != "and" && out[name] == "" {
				out[name] = body
			}
		}
	}
	return out
})

func apiSection(name string) string { return apiSections()[name] }

// Completion is one completion item.
type Completion struct {
	Label  string
	Detail string
	Doc    string
	Insert string // when it differs from Label
	Kind   CompletionKind
}

// CompletionKind says what a completion is.
type CompletionKind int

// The kinds of completions.
const (
	KindKeyword CompletionKind = iota
	KindField
	KindValue
	KindFunction
	KindVariable
)

// Complete returns the completions at the cursor of a file on its own
// (no bundle around it); the server completes with the bundle (complete).
func Complete(text string, line, char int) []Completion {
	ix := newIndex(&files{})
	ix.add("plugin.star", text, line, char)
	ix.roles = check.Callbacks(check.Bundle{Files: ix.trees})
	return ix.complete("plugin.star", text, line, char)
}

// complete returns the completions at the cursor of file rel: ctx members
// after "ctx." (those of the callback kind the function serves), a
// constructor's keywords inside its call, hook events, catalog values and
// other closed values inside a string argument, the plugin's status field
// names inside status.set("…"), the names a load("…", "…") can bring, and
// elsewhere the author's names then the predeclared ones.
func (ix *index) complete(rel, text string, line, char int) []Completion {
	c := cursorAt(text, line, char)
	col := runeCol(lineOf(text, line), char)
	if strings.Count(c.before, `"`)%2 == 1 {
		if out, ok := ix.loadNameCompletions(rel, c); ok {
			return out
		}
		return c.stringCompletions()
	}
	if chain := c.word(); len(chain) > 1 {
		// The function around the chain's root, which stays in place
		// when what follows it is blanked to parse (parseTolerant).
		root := len([]rune(c.before[:strings.LastIndexFunc(c.before, func(r rune) bool { return !isWord(r) && r != '.' })+1]))
		if kinds, isCtx := ix.ctxKindsAt(rel, chain[0], line, root); isCtx {
			return ctxCompletions(kinds, chain[1:len(chain)-1])
		}
		return []Completion{} // a member of something else: nothing known, nothing offered
	}
	var out []Completion
	if call, atKeyword := c.enclosingCall(); atKeyword {
		if own, ok := ix.ownSignature(rel, call); ok {
			// The author's function: its parameters as keywords, then
			// the names a positional argument may be.
			for _, p := range own.Params {
				name := paramName(own.Label[p.Start:p.End])
				if isIdent(name) {
					out = append(out, Completion{Label: name + " =", Detail: own.Label, Insert: name + " = ", Kind: KindKeyword})
				}
			}
		} else if sig := builtins.LookupSignature(call); sig != nil {
			for _, p := range sig.Params {
				out = append(out, Completion{Label: p.Name, Detail: string(p.Kind), Doc: p.Doc, Insert: p.Name + " = ", Kind: KindKeyword})
			}
			return out
		}
	}
	out = append(out, ix.ownCompletions(rel, line, col)...)
	for _, name := range builtins.PredeclaredNames() {
		if !isIdent(name) || slices.ContainsFunc(out, func(c Completion) bool { return c.Label == name }) {
			continue
		}
		comp := Completion{Label: name, Kind: KindFunction}
		if sig := builtins.LookupSignature(name); sig != nil {
			comp.Detail, comp.Doc = sig.Name+"("+strings.Join(sig.ParamNames(), ", ")+")", sig.Doc
		}
		out = append(out, comp)
	}
	return out
}

// ctxCompletions are the members of ctx.a.b (chain a, b) for a callback of
// one of kinds (any kind when none): at the first level only the fields
// check accepts for that kind (check.CtxFields).
func ctxCompletions(kinds []builtins.CtxKind, chain []string) []Completion {
	members := check.CtxFields(kinds)
	for _, name := range chain {
		i := slices.IndexFunc(members, func(m builtins.CtxMember) bool { return m.Name == name })
		if i < 0 {
			return nil
		}
		members = members[i].Members
	}
	out := make([]Completion, len(members))
	for i, m := range members {
		detail := ""
		if m.Capability != "" {
			detail = "needs the " + m.Capability + " capability"
		}
		out[i] = Completion{Label: m.Name, Detail: detail, Doc: m.Doc, Kind: KindField}
	}
	return out
}

var keywordBeforeString = regexp.MustCompile(`(\w+)\s*=\s*"[^"]*$`)

// stringCompletions completes inside a string literal: hook events (the
// first argument of hook or raw_hook), a keyword's closed values, and
// status field names in status.set/clear.
func (c cursor) stringCompletions() []Completion {
	values := func(vs []string, doc func(string) string) []Completion {
		out := make([]Completion, len(vs))
		for i, v := range vs {
			out[i] = Completion{Label: v, Kind: KindValue}
			if doc != nil {
				out[i].Doc = doc(v)
			}
		}
		return out
	}
	call, _ := c.enclosingCall()
	if m := keywordBeforeString.FindStringSubmatch(c.before); m != nil {
		if sig := builtins.LookupSignature(call); sig != nil {
			if p := sig.Param(m[1]); p != nil {
				return values(p.Values, nil)
			}
		}
		return nil
	}
	switch {
	case call == "hook" || call == "raw_hook":
		return values(contrib.HookEventNames(call == "raw_hook"), func(e string) string {
			return contrib.LookupHook(contrib.HookEvent(e)).Powers
		})
	case strings.HasSuffix(call, "status.set") || strings.HasSuffix(call, "status.clear"):
		return values(declaredStatusFields(c.text), nil)
	}
	return nil
}

var statusFieldRE = regexp.MustCompile(`status_field\(\s*(?:name\s*=\s*)?"([^"]+)"`)

// declaredStatusFields lists the status field names a document declares.
func declaredStatusFields(text string) []string {
	var out []string
	for _, m := range statusFieldRE.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

// targetDoc documents the predeclared TARGET_x and ORDER_x of a point's
// named default (contrib.Points).
func targetDoc(name string) string {
	for _, p := range contrib.Points {
		for _, t := range p.Targets {
			up := strings.ToUpper(t.Name)
			switch name {
			case "TARGET_" + up:
				return fmt.Sprintf("`%s` = %q: the named default of `%s` — %s. Pass it as `replace = %s`.", name, t.Name, p.Name, t.Doc, name)
			case "ORDER_" + up:
				return fmt.Sprintf("`%s` = %d: where the default %q of `%s` stands; give `order` relative to it.", name, t.Order, t.Name, p.Name)
			}
		}
	}
	return ""
}
