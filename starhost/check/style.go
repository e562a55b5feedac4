package check

import (
	"sync/atomic"

	"go.starlark.net/syntax"

	"github.com/crystal-star/crystal-star/contrib"
)

// StyleFunc reports the style warnings of one Starlark file, parsed from
// src with syntax.RetainComments, for plugin. It must be safe for
// concurrent use and must not modify tree.
type StyleFunc func(plugin, file string, tree *syntax.File, src []byte) []contrib.Diagnostic

// style is the registered StyleFunc, nil when none.
var style atomic.Pointer[StyleFunc]

// RegisterStyle makes f the style linter of `crystal-star check`
// (starhost.Check) and the language server. starhost/format registers
// buildifier's warnings from its init, so only a program that imports it
// links buildifier; without it, Check reports no Style* warnings.
func RegisterStyle(f StyleFunc) { style.Store(&f) }

// Style runs the registered style linter over one file; nil when none is
// registered.
func Style(plugin, file string, tree *syntax.File, src []byte) []contrib.Diagnostic {
	if f := style.Load(); f != nil {
		return (*f)(plugin, file, tree, src)
	}
	return nil
}
