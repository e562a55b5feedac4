package builtins

import (
	"fmt"
	"slices"

	"go.starlark.net/starlark"

	"github.com/crystal-star/crystal-star/contrib"
)

// ModelFacts are the facts of one model as plugins see them (CC21). They are
// tokens, not JSON field names, and never include API keys, endpoints,
// organisation or project (CC22).
type ModelFacts struct {
	Provider      string
	Protocol      string
	Model         string
	ContextWindow int
	MaxTokens     int
	Temperature   *float64 // nil: the model's default (None)
	TopP          *float64 // nil: the model's default (None)
	ImageInput    bool
	AudioInput    bool // declared by the operator; nothing accepts audio because of it
	VideoInput    bool // declared by the operator
	// Thinking is "default" or "off" (the host's sentinels) or one of the
	// model's listed effort tokens, lowercase and forwarded unchanged.
	Thinking string
	// ServiceTier and Speed are "" when unset (None). A listed "default"
	// tier is a tier token like any other.
	ServiceTier string
	Speed       string
}

// ReviewFacts are the review model's facts (CC22). Model is meaningful only
// when Independent: otherwise review uses the session model and plugins see
// no review model at all.
type ReviewFacts struct {
	Independent bool
	Model       ModelFacts
}

// SessionSource is implemented by Services that publish the live session and
// review views (CC20–CC23). Each read of a ctx.session or ctx.review
// attribute asks again, so a change (/model, /thinking, /tier, /speed,
// /approval model, /approval thinking) shows on the next read. Both return
// nil before the session is published; the views are then empty.
type SessionSource interface {
	Session() *ModelFacts
	Review() *ReviewFacts
}

func sessionCtx(c *callCtx) starlark.Value { return &sessionView{src: c.sessionSource()} }

func reviewCtx(c *callCtx) starlark.Value { return &reviewView{src: c.sessionSource()} }

// sessionSource is the session the call serves when its scope publishes
// the views, else the host's.
func (c *callCtx) sessionSource() SessionSource {
	if src, ok := contrib.SessionFrom(c.ctx).(SessionSource); ok {
		return src
	}
	src, _ := c.inst.req.Services.(SessionSource)
	return src
}

// modelAttrs are the fields of a model view, in the order dir() sorts them.
var modelAttrs = []string{"audio_input", "context_window", "image_input", "max_tokens", "model", "protocol",
	"provider", "service_tier", "speed", "temperature", "thinking", "top_p", "video_input"}

// modelAttr returns one field of f; nil when name is not a model field.
func modelAttr(f *ModelFacts, name string) starlark.Value {
	if f == nil {
		f = &ModelFacts{}
	}
	optional := func(s string) starlark.Value {
		if s == "" {
			return starlark.None
		}
		return starlark.String(s)
	}
	number := func(p *float64) starlark.Value {
		if p == nil {
			return starlark.None
		}
		return starlark.Float(*p)
	}
	switch name {
	case "provider":
		return starlark.String(f.Provider)
	case "protocol":
		return starlark.String(f.Protocol)
	case "model":
		return starlark.String(f.Model)
	case "context_window":
		return starlark.MakeInt(f.ContextWindow)
	case "max_tokens":
		return starlark.MakeInt(f.MaxTokens)
	case "temperature":
		return number(f.Temperature)
	case "top_p":
		return number(f.TopP)
	case "image_input":
		return starlark.Bool(f.ImageInput)
	case "audio_input":
		return starlark.Bool(f.AudioInput)
	case "video_input":
		return starlark.Bool(f.VideoInput)
	case "thinking":
		return starlark.String(f.Thinking)
	case "service_tier":
		return optional(f.ServiceTier)
	case "speed":
		return optional(f.Speed)
	}
	return nil
}

// sessionView is ctx.session: a live view of the session model (CC20, CC21).
// It holds no facts itself; every attribute read asks the source.
type sessionView struct{ src SessionSource }

var _ starlark.HasAttrs = (*sessionView)(nil)

func (v *sessionView) String() string        { return "<session>" }
func (v *sessionView) Type() string          { return "session" }
func (v *sessionView) Freeze()               {}
func (v *sessionView) Truth() starlark.Bool  { return starlark.True }
func (v *sessionView) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: session") }

// AttrNames lists the session facts.
func (v *sessionView) AttrNames() []string { return modelAttrs }

// Attr reads one fact as it is now.
func (v *sessionView) Attr(name string) (starlark.Value, error) {
	var f *ModelFacts
	if v.src != nil {
		f = v.src.Session()
	}
	return modelAttr(f, name), nil
}

// reviewView is ctx.review (CC22): independent is always there; model is
// the review model's name when independent and None otherwise; the other
// model fields exist only while review is independent.
type reviewView struct{ src SessionSource }

var _ starlark.HasAttrs = (*reviewView)(nil)

func (v *reviewView) String() string        { return "<review>" }
func (v *reviewView) Type() string          { return "review" }
func (v *reviewView) Freeze()               {}
func (v *reviewView) Truth() starlark.Bool  { return starlark.True }
func (v *reviewView) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: review") }

func (v *reviewView) facts() *ReviewFacts {
	if v.src != nil {
		if r := v.src.Review(); r != nil {
			return r
		}
	}
	return &ReviewFacts{}
}

// AttrNames lists independent and model, plus the model facts when review
// is independent.
func (v *reviewView) AttrNames() []string {
	if !v.facts().Independent {
		return []string{"independent", "model"}
	}
	names := append(slices.Clone(modelAttrs), "independent")
	slices.Sort(names)
	return names
}

// Attr reads one fact as it is now.
func (v *reviewView) Attr(name string) (starlark.Value, error) {
	r := v.facts()
	switch {
	case name == "independent":
		return starlark.Bool(r.Independent), nil
	case !r.Independent && name == "model":
		return starlark.None, nil
	case !r.Independent:
		if modelAttr(nil, name) != nil {
			return nil, fmt.Errorf("review has no .%s: review uses the session model (read ctx.session.%s)", name, name)
		}
		return nil, nil
	}
	return modelAttr(&r.Model, name), nil
}
