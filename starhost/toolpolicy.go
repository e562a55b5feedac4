package starhost

import "github.com/crystal-star/crystal-star/contrib"

// The dispatch pipeline consults a tool's read_only and requires_approval
// (MC4). The rule, for plugin and external tools (the host's own tools have
// no hints):
//
//   - In plan mode (Facts.Mode "plan") a tool that is not read_only is
//     refused with call_denied: planning must not change anything.
//   - A call the host does not classify (no built-in classification, no
//     plugin classifier answered) takes its classification from the hints:
//     risk "low" when read_only, else "medium"; permission "ask" when
//     approval is required (declared requires_approval, else !read_only),
//     else "allow". The default approver then asks only when required.
//   - A classified call keeps its classification, except that a tool that
//     requires approval turns "allow" into "ask". Hints never lower the
//     host's verdict: they cannot turn "ask" or "deny" into "allow".

// PlanMode is the Facts.Mode in which only read-only tools run.
const PlanMode = "plan"

// toolHints applies the rule above to cl; it returns a refusal when plan
// mode refuses the tool.
func (d *dispatch) toolHints(name string, cl *Classified) (contrib.Result, bool) {
	info, ok := d.view.ToolInfo(name)
	if !ok {
		return contrib.Result{}, false
	}
	if d.h.factsOf(d.ctx).Mode == PlanMode && !info.ReadOnly {
		return denied("plan mode runs only read-only tools; %s is not read_only", info.CanonicalName), true
	}
	switch {
	case !cl.Known:
		cl.Risk, cl.Permission, cl.Source = "medium", "allow", "hints"
		if info.ReadOnly {
			cl.Risk = "low"
		}
		if info.RequiresApproval {
			cl.Permission = "ask"
		}
	case info.RequiresApproval && cl.Permission == "allow":
		cl.Permission = "ask"
	}
	return contrib.Result{}, false
}
