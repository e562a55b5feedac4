package starhost

import "github.com/crystal-star/crystal-star/builtins"

// What external tests read of the services plugins see (services_host.go).

// EnvironmentOf returns what plugins see on ctx.env.
func EnvironmentOf(h *Host) *builtins.Environment { return h.environment() }

// DataDirsOf returns a plugin's data directories.
func DataDirsOf(h *Host, plugin, directory string) (global, project string) {
	return h.dataDirs(plugin, directory)
}
