// Package format formats .star files and lints their style the way
// buildifier does (github.com/bazelbuild/buildtools): Source and Files are
// `crystal-star fmt`, LintTree the Style* warnings of `crystal-star check`
// and the language server.
//
// It is a package of its own so that only what formats links buildifier
// (and the protobuf runtime it brings): starhost and an embedder that only
// runs plugins do not. Importing it registers LintTree with starhost/check
// (check.RegisterStyle); without it, check.Plugins reports no Style*
// warnings.
package format
