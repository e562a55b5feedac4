package mcpserve

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestPromptArgsArePositional: prompts/get joins named argument values in
// hint order; a gap (a missing required argument, or a missing optional
// one before a given one) is an error naming it, never a shifted value.
func TestPromptArgsArePositional(t *testing.T) {
	p := &mcp.Prompt{Name: "triage", Arguments: promptArguments("<queue> [limit] [sort]")}
	for _, c := range []struct {
		given map[string]string
		want  string // the args, or the error's text
	}{
		{map[string]string{"queue": "q", "limit": "5"}, "q 5"},
		{map[string]string{"queue": "q"}, "q"},
		{map[string]string{"limit": "5"}, `missing required argument "queue"`},
		{map[string]string{"queue": "q", "sort": "asc"}, `argument "sort" is given but "limit" before it is not`},
	} {
		got, err := commandArgs(p, c.given)
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("commandArgs(%v) = %q; want %q", c.given, got, c.want)
		}
	}
}
