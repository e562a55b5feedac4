// Package testkit is the project's shared test kit at the bottom of the
// import graph: it depends on the standard library only, so the internal
// tests of every package (contrib and below included) can use it.
//
// It writes plugin trees (WriteTree, Plugin, CopyTree) and records what a
// component reports (Log, and Services for contrib.Services), and parses
// a package's Go files for tests that hold code to a rule (GoFiles).
// hostkit starts a starhost.Host for starhost's own external tests.
// starhost/plugintest, the public kit for plugin authors and embedders, is
// linked by the CLI (`crystal-star test`), so it does not build on this
// one: only tests import testkit, and TestH26_6_CLILinksNoTestCode keeps
// it out of the CLI. CONTRIBUTING.md says which to reach for.
package testkit
