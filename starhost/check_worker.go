package starhost

import (
	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/lifecycle"
)

// request is the activation request of p's dry run; providers holds its
// satisfied dependencies (only their ids cross to the worker).
func (ck *checker) request(p *checkPlugin, providers map[string]map[string]any) contrib.ActivationRequest {
	c, mf := p.cand, p.cand.Manifest
	return contrib.ActivationRequest{
		Plugin: mf.ID, DisplayName: mf.Name(), Generation: "check", Source: c.Source,
		Bundle: lifecycle.NewBundle(p.files), Entry: mf.Entry, SourceRoot: c.Display,
		Capabilities: mf.Capabilities, Exports: mf.Exports, Providers: providers,
		Rules: contrib.Rules{BuiltinTools: ck.opts.BuiltinTools, BuiltinCommands: ck.opts.BuiltinCommands,
			HostPlaceholders: ck.opts.HostPlaceholders},
		Services: sandboxServices{},
	}
}

// isolationOnly reports a diagnostic about running in a worker rather than
// about the plugin's files: Check runs every plugin in one, whatever the
// configuration says.
func isolationOnly(d contrib.Diagnostic) bool { return d.Code == contrib.IsolationUnsupported }
