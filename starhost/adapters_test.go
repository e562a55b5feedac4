package starhost_test

import (
	"context"
	"testing"

	"github.com/crystal-star/crystal-star/starhost"
)

// An embedder registers an adapter of its own for a new protocol through
// the same interface as the built-in ones; it takes precedence over
// plugins' client factories, and an invalid protocol token fails New.
func TestEmbedderAdapterServesItsProtocol(t *testing.T) {
	srv := fakeModel(t)
	h, _ := modelsHost(t, srv.URL, nil, starhost.Options{Adapters: []starhost.ModelAdapter{echoAdapter{}}})
	if err := h.Session().SelectModel("acme/a1"); err != nil {
		t.Fatal(err)
	}
	c, err := starhost.ModelClientForTest(context.Background(), h, "acme.p", starhost.RoleSession)
	if err != nil {
		t.Fatal(err)
	}
	reply, err := c.Complete(context.Background(), starhost.ModelRequest{Messages: []starhost.Message{{Role: "user", Content: "hi"}}})
	if err != nil || reply.Text != "acme adapter: acme/a1 hi" {
		t.Errorf("reply = %+v, %v", reply, err)
	}
	if _, err := starhost.New(starhost.Options{Home: t.TempDir(), Workspace: t.TempDir(), Adapters: []starhost.ModelAdapter{badAdapter{}}}); err == nil {
		t.Error("New accepted the protocol token \"9bad\"")
	}
}

type echoAdapter struct{}

func (echoAdapter) Protocol() string { return "acme" }
func (echoAdapter) NewClient(_ context.Context, cfg starhost.AdapterConfig) (starhost.ModelClient, error) {
	return echoClient(cfg.Facts.Provider + "/" + cfg.Facts.Model), nil
}

type echoClient string

func (c echoClient) Complete(_ context.Context, req starhost.ModelRequest) (starhost.ModelReply, error) {
	return starhost.ModelReply{Text: "acme adapter: " + string(c) + " " + req.Messages[0].Content}, nil
}

type badAdapter struct{ echoAdapter }

func (badAdapter) Protocol() string { return "9bad" }
