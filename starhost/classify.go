package starhost

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
)

// Classification is the risk and permission the host assigns to one tool
// call before approval (CC10).
type Classification struct {
	// Risk is "low", "medium" or "high".
	Risk string `json:"risk"`
	// Permission is "allow" (run without asking), "ask" (the approver
	// prompts) or "deny" (refused with call_denied).
	Permission string `json:"permission"`
}

// Classified is the result of Classify: the classification, and who gave
// it.
type Classified struct {
	Classification
	// Known is false when nobody classifies the tool (Classification is
	// then zero).
	Known bool
	// Source is "builtin" (Options.Classifications or a built-in tool
	// name), "plugin" (Plugin names which) or "" when nobody knows the
	// tool; Dispatch sets "hints" for a classification taken from the
	// tool's read_only and requires_approval hints (MC4).
	Source string
	// Plugin is the plugin whose classifier answered, when Source is
	// "plugin".
	Plugin string
}

// classify is Session.Classify's work: the arguments are checked here, at
// the API boundary, and decoded only when a classifier is asked.
func (h *Host) classify(ctx context.Context, tool string, args json.RawMessage) (Classified, error) {
	args = contrib.Arguments(args)
	if !json.Valid(args) {
		err := json.Unmarshal(args, new(any)) // says what is wrong, and where
		return Classified{}, fmt.Errorf("%w: the arguments are not JSON: %v", ErrInvalidArguments, err)
	}
	return h.classifyValue(ctx, tool, func() any {
		v, _ := decodeValue(args) // valid JSON, checked above
		return v
	}), nil
}

// classifyValue classifies one call of tool whose arguments args returns
// decoded (asked only when a plugin classifier runs): Classify's answer,
// and step 4 of Dispatch's route, which passes the arguments it decoded
// once.
func (h *Host) classifyValue(ctx context.Context, tool string, args func() any) Classified {
	if c, ok := h.opts.Classifications[tool]; ok {
		return Classified{Classification: c, Known: true, Source: "builtin"}
	}
	if slices.Contains(h.opts.BuiltinTools, tool) {
		return Classified{Source: "builtin"}
	}
	pubs := h.registry.View().Published()
	if !slices.ContainsFunc(pubs, func(p *contrib.Published) bool { return len(p.Set.Classifiers) > 0 }) {
		return Classified{} // nobody to ask: skip decoding the arguments
	}
	decoded := args()
	for _, p := range pubs {
		for _, cl := range p.Set.Classifiers {
			var c contrib.Classification
			var ok bool
			var err error
			p.Gate.Do(ctx, func(ctx context.Context) { c, ok, err = cl.Classify(ctx, tool, decoded) })
			if err != nil {
				h.note(builtins.FailureDiagnostic(err))
				continue
			}
			if ok {
				return Classified{Classification: Classification(c), Known: true, Source: "plugin", Plugin: p.Plugin}
			}
		}
	}
	return Classified{}
}

// String formats a result the way the dev console prints it.
func (c Classified) String() string {
	switch {
	case !c.Known && c.Source == "builtin":
		return "built-in tool without a built-in classification; classifiers are not asked"
	case !c.Known:
		return "unknown: no classifier answered"
	case c.Source == "plugin":
		return fmt.Sprintf("risk=%s permission=%s (plugin %s)", c.Risk, c.Permission, c.Plugin)
	}
	return fmt.Sprintf("risk=%s permission=%s (%s)", c.Risk, c.Permission, strings.ToLower(c.Source))
}
