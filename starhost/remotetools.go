package starhost

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/lifecycle"
)

// RemoteTools routes the calls of rpc-eligible tools (remote = True) of the
// plugins config.toml sends to executors ([plugins."id"] execute = ...,
// docs/remote.md). starhost/remote implements it over MCP Streamable HTTP;
// starhost links no network code of its own. Options.Remote nil runs every
// tool in the host.
type RemoteTools interface {
	// Prepare is called while a generation of a routed plugin with
	// remote tools activates, before it is published (so a reload switches
	// make-before-break): it makes the bundle available to the executors
	// and returns the route its remote tools' calls take. An error leaves
	// the remote tools out of the generation, with a note
	// (RemoteBundleRefused); the plugin's other contributions serve.
	Prepare(ctx context.Context, g RemoteGeneration) (RemoteRoute, error)
}

// RemoteGeneration is one generation of a plugin whose remote tools are
// routed to executors.
type RemoteGeneration struct {
	Plugin, Generation string
	// Files is the bundle snapshot the generation runs from, by
	// slash-separated path (plugin.toml among them).
	Files map[string][]byte
	// Tools are the names of its remote = True tools.
	Tools []string
	// Executors are the executors config.toml names for the plugin, in
	// order.
	Executors []NamedExecutor
	// Note reports a note about the plugin's executors (one lost, one
	// refusing the bundle) as ExecutorUnavailable.
	Note func(message string)
}

// RemoteRoute carries the calls of one generation's remote tools.
type RemoteRoute interface {
	// Call runs tool with its validated JSON arguments on an executor. It
	// must be safe for concurrent use and answer failures as results:
	// tool_unavailable, tool_interrupted, cancelled.
	Call(ctx context.Context, tool string, args json.RawMessage) ToolResult
	// Close is called once the generation is retired.
	Close()
}

// routeRemote replaces the runs of inst's remote tools by calls over the
// route RemoteTools prepares, when config.toml routes req.Plugin to
// executors: the one place remote execution enters the host.
func (h *Host) routeRemote(ctx context.Context, req contrib.ActivationRequest, inst contrib.Instance) contrib.Instance {
	execs := h.Config().ExecutorsOf(req.Plugin)
	if h.opts.Remote == nil || len(execs) == 0 || inst == nil {
		return inst
	}
	set := inst.Set()
	var names []string
	for _, t := range set.Tools {
		if t.Remote {
			names = append(names, t.Name)
		}
	}
	if len(names) == 0 {
		return inst
	}
	b, ok := req.Bundle.(*lifecycle.Bundle)
	if !ok {
		return inst
	}
	route, err := h.opts.Remote.Prepare(ctx, RemoteGeneration{Plugin: req.Plugin, Generation: req.Generation,
		Files: b.Files(), Tools: names, Executors: execs, Note: func(msg string) {
			h.note(contrib.Diag(contrib.ExecutorUnavailable, req.Plugin, contrib.Pos{}, "%s", msg))
		}})
	if err != nil {
		d := contrib.Diag(contrib.RemoteBundleRefused, req.Plugin, contrib.Pos{}, "remote tools %s are left out: %v", strings.Join(names, ", "), err)
		set.Diagnostics = append(set.Diagnostics, d)
		set.Tools = slices.DeleteFunc(set.Tools, func(t contrib.Tool) bool { return t.Remote })
		return inst
	}
	for i := range set.Tools {
		if t := &set.Tools[i]; t.Remote {
			name := t.Name
			t.Run = contrib.ToolFunc(func(ctx context.Context, args any) contrib.Result {
				raw, err := json.Marshal(args)
				if err != nil {
					return contrib.Failure(contrib.ErrInvalidArguments, err.Error())
				}
				return toResult(route.Call(ctx, name, raw))
			})
		}
	}
	return &remoteInstance{Instance: inst, route: route}
}

// remoteInstance closes a generation's route with it.
type remoteInstance struct {
	contrib.Instance
	route RemoteRoute
}

func (r *remoteInstance) Close() {
	r.Instance.Close()
	r.route.Close()
}

// Attaches and Start forward the optional interfaces of the instance.
func (r *remoteInstance) Attaches(s contrib.AttachStage) bool {
	if p, ok := r.Instance.(contrib.AttachProber); ok {
		return p.Attaches(s)
	}
	return true
}

func (r *remoteInstance) Start(g *contrib.Gate) {
	if s, ok := r.Instance.(contrib.Starter); ok {
		s.Start(g)
	}
}
