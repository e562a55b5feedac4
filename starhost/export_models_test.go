package starhost

import (
	"context"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
)

// ModelClientForTest is the client builtins gets for plugin's ctx.models
// (services.ModelClient), as a ModelClient.
func ModelClientForTest(ctx context.Context, h *Host, plugin string, role ModelRole) (ModelClient, error) {
	c, err := services{h}.ModelClient(ctx, plugin, contrib.ModelRole(role))
	if err != nil {
		return nil, err
	}
	return testClient{c}, nil
}

type testClient struct{ c contrib.ModelClient }

func (t testClient) Complete(ctx context.Context, req ModelRequest) (ModelReply, error) {
	in := contrib.ModelRequest{MaxTokens: req.MaxTokens, Thinking: req.Thinking, Images: req.Images}
	for _, m := range req.Messages {
		in.Messages = append(in.Messages, contrib.Message(m))
	}
	reply, err := t.c.Complete(ctx, in)
	return ModelReply(reply), err
}

// ModelEpochForTest is services.ModelEpoch.
func ModelEpochForTest(h *Host, role ModelRole) uint64 {
	return services{h}.ModelEpoch(contrib.ModelRole(role))
}

// EnvironmentForTest is what plugins see on ctx.env.
func EnvironmentForTest(h *Host) *builtins.Environment { return services{h}.Environment() }
