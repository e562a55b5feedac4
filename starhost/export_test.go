package starhost

import (
	"context"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
)

// What external tests reach of the services plugin code sees (services.go,
// services_host.go).

// ModelClientForTest is the client builtins gets for plugin's ctx.models
// (services.ModelClient), as a ModelClient.
func ModelClientForTest(ctx context.Context, h *Host, plugin string, role ModelRole) (ModelClient, error) {
	c, err := services{h}.ModelClient(ctx, plugin, contrib.ModelRole(role))
	if err != nil {
		return nil, err
	}
	return hostClient{c}, nil
}

// ModelEpochForTest is services.ModelEpoch.
func ModelEpochForTest(h *Host, role ModelRole) uint64 {
	return services{h}.ModelEpoch(contrib.ModelRole(role))
}

// EnvironmentForTest is what plugins see on ctx.env.
func EnvironmentForTest(h *Host) *builtins.Environment { return services{h}.Environment() }

// DataDirsOf returns a plugin's data directories, as a development plugin
// (its owner claim included), or "" and "" when they are refused.
func DataDirsOf(h *Host, plugin, directory string) (global, project string) {
	global, project, _ = h.dataDirs(plugin, directory, contrib.SourceDev)
	return global, project
}
