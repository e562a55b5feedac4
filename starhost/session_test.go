package starhost_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/crystal-star/crystal-star/starhost"
)

// The session's errors are or wrap starhost Codes a host branches on with
// errors.Is; their text is what the console shows.
func TestSessionErrorsAreCodes(t *testing.T) {
	srv := fakeModel(t)
	h, _ := modelsHost(t, srv.URL, nil, starhost.Options{})
	s := h.Session()
	if err := s.SelectModel("nope/x"); !errors.Is(err, starhost.ErrUnknownModel) {
		t.Errorf("SelectModel(nope/x) = %v; want unknown_model", err)
	}
	if err := s.SelectReviewModel("nope/x"); !errors.Is(err, starhost.ErrUnknownModel) {
		t.Errorf("SelectReviewModel(nope/x) = %v; want unknown_model", err)
	}
	err := s.SetThinking("huge")
	if !errors.Is(err, starhost.ErrNotOffered) || err.Error() != `thinking "huge" is not offered by local/echo; choose one of: default, off, low, max [not_offered]` {
		t.Errorf("SetThinking(huge) = %v; want not_offered", err)
	}
	if err := s.SetReviewThinking("low"); !errors.Is(err, starhost.ErrNoModel) {
		t.Errorf("SetReviewThinking without a review model = %v; want no_model", err)
	}

	bare, err := starhost.New(starhost.Options{Home: t.TempDir(), Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close(context.Background())
	if err := bare.Session().Save(); !errors.Is(err, starhost.ErrNoModel) {
		t.Errorf("Save without a model = %v; want no_model", err)
	}
	if err := bare.Session().SetSpeed("fast"); !errors.Is(err, starhost.ErrNoModel) {
		t.Errorf("SetSpeed without a model = %v; want no_model", err)
	}
}

// failingAdapter's clients fail with a *starhost.ModelError.
type failingAdapter struct{}

func (failingAdapter) Protocol() string { return "acme" }
func (failingAdapter) NewClient(context.Context, starhost.AdapterConfig) (starhost.ModelClient, error) {
	return failingClient{}, nil
}

type failingClient struct{}

func (failingClient) Complete(context.Context, starhost.ModelRequest) (starhost.ModelReply, error) {
	return starhost.ModelReply{}, &starhost.ModelError{Code: "rate_limited", Provider: "acme", Model: "a1", Status: 429}
}

// An embedder's adapter written against starhost types only gives plugins
// the stable code of its *ModelError, as the built-in adapters do; the
// error matches its Code with errors.Is.
func TestEmbedderModelErrorCodeReachesPlugin(t *testing.T) {
	if err := error(&starhost.ModelError{Code: "rate_limited"}); !errors.Is(err, starhost.Code("rate_limited")) {
		t.Errorf("errors.Is(ModelError, its Code) is false")
	}
	srv := fakeModel(t)
	h, _ := modelsHost(t, srv.URL, map[string]map[string]string{"p": {
		"plugin.toml": "id = \"acme.ask\"\nversion = \"1.0.0\"\ncapabilities = [\"models\"]\n",
		"plugin.star": `def ask(ctx, args):
    r = ctx.models.session.complete("hi", on_error = "return")
    return "%s|%s" % (r.code, r.message)

contribute(tools = [tool(name = "ask", catalogs = "work", run = ask)])
`}}, starhost.Options{Adapters: []starhost.ModelAdapter{failingAdapter{}}})
	if err := h.Session().SelectModel("acme/a1"); err != nil {
		t.Fatal(err)
	}
	res := h.Session().Thread("").Tools(context.Background(), starhost.Work).Invoke(context.Background(), "ask", json.RawMessage(`{}`))
	if res.Text != "rate_limited|acme/a1" {
		t.Errorf("plugin saw %q (%+v)", res.Text, res.Error)
	}
}
