package starhost

import (
	"os"
	"path/filepath"
)

// dataDirs returns a plugin's data directories (CC29): global
// {home}/data/plugins/<directory>, shared across workspaces, and project
// <workspace>/.crystal/data/plugins/<directory>. The host tries to create
// both and does not report failure: a plugin creates them if missing
// (ctx.data's write does). They are not the install directory and not
// secret storage.
func (h *Host) dataDirs(plugin, directory string) (global, project string) {
	switch directory {
	case "", ".", "..", string(filepath.Separator):
		directory = plugin
	}
	global, project = h.paths().Data(directory)
	_ = os.MkdirAll(global, 0o755)
	_ = os.MkdirAll(project, 0o755)
	return global, project
}
