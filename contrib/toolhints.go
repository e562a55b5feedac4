package contrib

// Tool definition fields beyond the name (MC4): a namespace giving the
// canonical name ns.name the host shows (the model-facing name is
// unchanged), and the policy hints read_only and requires_approval that the
// dispatch pipeline consults. Hints only ever add caution to the host's
// policy: they decide for a tool the host does not classify, and
// requires_approval can turn the host's "allow" into "ask", never the
// reverse.

// checkNamespace checks a tool namespace: a letter, then letters,
// digits, '_', '-' or '.', 1–64 characters (plugin ids fit). Its error reads
// as CheckToolName's.
func checkNamespace(ns string) error { return checkToken(ns, "_-.") }

// canonicalToolName is ns.name, or name alone without a namespace.
func canonicalToolName(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "." + name
}

// approvalRequired is the effective requires_approval of a tool: the
// declared value, else true unless the tool is read-only (a tool that may
// change something asks by default).
func approvalRequired(readOnly bool, declared *bool) bool {
	if declared != nil {
		return *declared
	}
	return !readOnly
}

// ToolInfo returns the projection of the published tool called name
// (case-insensitive), in any catalog.
func (v *View) ToolInfo(name string) (ToolInfo, bool) {
	for _, t := range v.tools {
		if fold(t.Name) == fold(name) {
			return t.info(), true
		}
	}
	return ToolInfo{}, false
}

// info projects one entry (DC4, MC4).
func (t *toolEntry) info() ToolInfo {
	return ToolInfo{Name: t.Name, Plugin: t.Plugin, Generation: t.Generation, ToolSet: t.ToolSet,
		Catalogs: t.Catalogs.String(), Description: t.Description, Parameters: t.Parameters, ReadOnly: t.ReadOnly,
		Namespace: t.Namespace, CanonicalName: canonicalToolName(t.Namespace, t.Name), RequiresApproval: t.RequiresApproval,
		Multimodal: t.Multimodal, OutputSchema: t.Output, Remote: t.Remote}
}
