// Package plugintest is the test kit of crystal-star plugin authors and
// embedders, in the style of net/http/httptest.
//
// NewHost starts a real host over a plugin directory in t.TempDir(): the
// plugin is a development plugin (a copy, so a test may edit it and
// Reload), plugin timers run on a starhost.ManualClock (Advance), and a
// FakeModel on 127.0.0.1 answers model calls with scripted replies when
// asked for. A plugin that does not activate fails the test with its
// diagnostics at file:line:col. Call, Expand, Bind, StatusLine and Dispatch
// drive the plugin the way an agent host would.
//
// RunScenarios is `crystal-star test`: it runs each plugin's
// testdata/*.txtar as testscript scenarios in-process, with the commands of
// Commands (fakemodel, json, waitmatch, exitcode), which the project's own
// end-to-end scenarios use as well. docs/testing.md is the guide.
//
// The kit uses only starhost's public API, lifecycle.ReadBundle (the copy
// is the bundle the host reads) and testscript. `crystal-star test` links
// it, so it imports nothing made for the project's own tests
// (internal/testkit): TestH26_6_CLILinksNoTestCode keeps it so.
package plugintest
