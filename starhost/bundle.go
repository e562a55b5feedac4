package starhost

import (
	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/lifecycle"
)

// PluginBundle is a snapshot of a plugin directory read exactly as
// activation reads it (DC23): regular files only — links inside the
// directory are not followed, FIFOs and devices are left out — without
// desktop/, .git/ and the .builtin marker, at most 32 MiB in all, every file
// read with that cap. Nothing outside the directory is read. A tool that
// reads a plugin's files on the host's behalf (the language server) reads
// them from here, so it sees what the host would run and nothing else. A
// PluginBundle is immutable and safe for concurrent use.
type PluginBundle struct{ b *lifecycle.Bundle }

// ReadPluginBundle snapshots the plugin directory dir. A directory over the
// size cap, or one that cannot be listed, is an error.
func ReadPluginBundle(dir string) (*PluginBundle, error) {
	b, err := lifecycle.ReadBundle(dir)
	if err != nil {
		return nil, err
	}
	return &PluginBundle{b: b}, nil
}

// File returns the bytes of the file at name, a slash-separated path
// relative to the plugin directory; ok is false when the bundle has no such
// file. The bytes must not be modified.
func (b *PluginBundle) File(name string) (data []byte, ok bool) {
	data, ok = b.b.Files()[name]
	return data, ok
}

// Files returns every file of the bundle by its slash-separated path. The
// map must not be modified.
func (b *PluginBundle) Files() map[string][]byte { return b.b.Files() }

// ResolveLoad resolves module, as named by load() in the bundle file from
// (slash-separated, relative to the plugin directory), to the bundle path
// activation loads: the one rule the host, check and the language server
// follow. The error says why module names no file inside the plugin
// directory (an absolute path, one that leaves the directory).
func ResolveLoad(from, module string) (string, error) { return builtins.ResolveLoad(from, module) }
