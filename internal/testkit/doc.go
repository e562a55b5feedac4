// Package testkit is the project's shared test kit at the bottom of the
// import graph: it depends on the standard library only, so the internal
// tests of every package (contrib and below included) can use it.
//
// It writes plugin trees (WriteTree, Plugin, CopyTree) and records what a
// component reports (Log, and Services for contrib.Services). The layers
// above build on it: starhost/plugintest is the public kit for plugin
// authors and embedders (a host over one plugin, the fake model, scenario
// commands), and hostkit starts a starhost.Host for starhost's own
// external tests. CONTRIBUTING.md says which to reach for.
package testkit
