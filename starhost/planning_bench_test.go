package starhost_test

import (
	"testing"

	"github.com/crystal-star/crystal-star/starhost"
)

// BenchmarkPlanTools compares one tool planning without a provider (the
// captured ThreadTools snapshot) against one with a tool_provider that
// offers one tool (a Starlark call, validation and a new snapshot per
// planning), MC2.
func BenchmarkPlanTools(b *testing.B) {
	static := `contribute(tools = [tool(name = "t", catalogs = "work", run = lambda ctx, args: "x")])`
	provided := `
def provide(ctx, req):
    return [tool(name = "p", catalogs = "work", parameters = {"type": "object"}, run = lambda ctx, args: "x")]

contribute(tools = [tool(name = "t", catalogs = "work", run = lambda ctx, args: "x")],
           tool_providers = [tool_provider(run = provide)])`
	// Issue 24, point 3: with a provider, the restrictions are asked per
	// planning, with the provided names too.
	restricted := provided[:len(provided)-1] + `,
           tool_restrictions = [tool_restriction(run = lambda ctx, req: [n for n in req["tools"] if n == "x"])])`
	for _, c := range []struct{ name, src string }{{"static", static}, {"provider", provided}, {"provider_restricted", restricted}} {
		b.Run(c.name, func(b *testing.B) {
			h, _, _ := pointsHost(b, starhost.Options{}, map[string]string{"a": c.src})
			b.ReportAllocs()
			for b.Loop() {
				if h.Session().Thread("t").Tools(bg, starhost.Work).Len() == 0 {
					b.Fatal("no tools")
				}
			}
		})
	}
}
