package check_test

import (
	"context"
	"fmt"

	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/check"
)

// ExampleCheck lints one plugin directory without starting a host: no trust
// is needed and no plugin callback runs. The lines are the ones
// `crystal-star check` prints.
func ExamplePlugins() {
	r, err := check.Plugins(context.Background(), check.Options{
		Paths:   []string{"../../testdata/check/tool_duplicate"},
		Options: starhost.Options{Home: "/nonexistent", BuiltinTools: []string{"read", "bash"}},
	})
	if err != nil {
		panic(err)
	}
	for _, d := range r.Diagnostics {
		fmt.Println(check.Line(d))
	}
	fmt.Println(r.Summary())
	// Output:
	// ../../testdata/check/tool_duplicate/plugin.star:6:9: error: acme.notes: tool "Summary" is declared twice in this plugin; the later one is left out [ToolDuplicate]
	// 1 error, 0 warnings in 1 plugin
}
