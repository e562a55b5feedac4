package builtins

import (
	"strings"
	"testing"
)

// contribute() unpacks only the keywords a call passes; a wrong keyword or a
// wrong type is still worded by UnpackArgs, naming the keyword.
func TestContributeKeywordErrors(t *testing.T) {
	for src, want := range map[string]string{
		"contribute(tool = [])\n":                                `unexpected keyword argument "tool"`,
		"contribute(tools = 1)\n":                                `for parameter "tools": got int, want list`,
		"contribute(commands = [], tools = 1)\n":                 `for parameter "tools": got int, want list`,
		"contribute(exports = [], tools = [])\n":                 `for parameter "exports": got list, want dict`,
		"contribute(tools = [], bogus = 1, placeholders = 2)\n":  `unexpected keyword argument "bogus"`,
		"contribute(status_fields = [], placeholders = \"x\")\n": `for parameter "placeholders": got string, want list`,
	} {
		if d := activateErr(t, Options{}, src); !strings.Contains(d.Message, want) {
			t.Errorf("%s: %s; want it to say %s", strings.TrimSpace(src), d.Message, want)
		}
	}
}
