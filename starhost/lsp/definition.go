package lsp

import (
	"regexp"
	"strings"
)

// Location is a place in a file: a path and a 0-based line and UTF-16
// character.
type Location struct {
	Path       string
	Line, Char int
}

var (
	loadRE    = regexp.MustCompile(`(?s)load\(\s*"([^"]+)"(.*?)\)`)
	loadArgRE = regexp.MustCompile(`(?:(\w+)\s*=\s*)?"([^"]+)"`)
)

// Loader resolves the module a load() in the file at from names to the
// loaded file's path and text (the editor's unsaved text where there is
// one); ok is false when the module names no file of the plugin's bundle.
// The server's loader resolves exactly as activation does (loadFile).
type Loader func(from, module string) (path, text string, ok bool)

// Definition finds where the name at the cursor of the file at path is
// defined: a top-level def or assignment of the file, or — following
// load() through load — of the file it was loaded from, in as many steps as
// the loads take. On a load() module string it is that file. ok is false
// when nothing is found.
func Definition(path, text string, line, char int, load Loader) (Location, bool) {
	c := cursorAt(text, line, char)
	for _, m := range loadRE.FindAllStringSubmatchIndex(text, -1) {
		if c.offset >= m[2] && c.offset <= m[3] { // on the module string
			target, _, ok := load(path, text[m[2]:m[3]])
			return Location{Path: target}, ok
		}
	}
	chain := c.word()
	if len(chain) != 1 {
		return Location{}, false
	}
	name := chain[0]
	for range 8 { // load chains are short; a cycle is the compiler's to report
		if loc, ok := topLevel(path, text, name); ok {
			return loc, true
		}
		module, orig, ok := loadedFrom(text, name)
		if !ok {
			return Location{}, false
		}
		if path, text, ok = load(path, module); !ok {
			return Location{}, false
		}
		name = orig
	}
	return Location{}, false
}

// topLevel finds `def name(` or `name =` at the start of a line.
func topLevel(path, text, name string) (Location, bool) {
	for i, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, "def "+name+"("), strings.HasPrefix(l, "def "+name+" ("):
			return Location{Path: path, Line: i, Char: len("def ")}, true
		case strings.HasPrefix(l, name+" =") || strings.HasPrefix(l, name+"="):
			return Location{Path: path, Line: i}, true
		}
	}
	return Location{}, false
}

// loadedFrom returns the module and original name a load() of text binds
// name to.
func loadedFrom(text, name string) (module, orig string, ok bool) {
	for _, m := range loadRE.FindAllStringSubmatch(text, -1) {
		for _, a := range loadArgRE.FindAllStringSubmatch(m[2], -1) {
			local := a[1]
			if local == "" {
				local = a[2]
			}
			if local == name {
				return m[1], a[2], true
			}
		}
	}
	return "", "", false
}
