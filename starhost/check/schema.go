package check

import (
	"strings"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
)

// placeSchemaErrors moves each ToolSchemaInvalid of p from its tool(...)
// call to the property the error names, when the tool's parameters are a
// dict literal: the value of the deepest key of the pointer that the
// literal holds (issue 29 point 2). It runs once p's trees are final. The
// running host places its note with the same builtins.SchemaErrorPos.
func (ck *runner) placeSchemaErrors(p *checkPlugin) {
	for i, d := range ck.diags {
		if d.Code != contrib.ToolSchemaInvalid || d.Plugin != p.cand.ID() || d.Pointer == "" {
			continue
		}
		f := p.parsed[strings.TrimPrefix(d.Pos.File, p.cand.Display+"/")]
		if pos, ok := builtins.SchemaErrorPos(f, d.Pos, d.Pointer); ok {
			ck.diags[i].Pos = pos
		}
	}
}
