package builtins

import (
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/contrib"
)

// TestReview_SchemaErrorPosTakesThePointer: a ToolSchemaInvalid note is
// placed by the pointer it carries (contrib.Diagnostic.Pointer), not by
// one read back out of its message; a note without one stays where it is.
func TestReview_SchemaErrorPosTakesThePointer(t *testing.T) {
	line3 := `    parameters = {"properties": {"count": {"type": "integr"}}},`
	src := "tool(\n    name = \"x\",\n" + line3 + "\n)\n"
	f, err := Dialect.Parse("plugin.star", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	call := contrib.Pos{File: "plugin.star", Line: 1, Col: 5}
	pos, ok := SchemaErrorPos(f, call, "/properties/count/type")
	if want := (contrib.Pos{File: "plugin.star", Line: 3, Col: strings.Index(line3, `"integr"`) + 1}); !ok || pos != want {
		t.Errorf("SchemaErrorPos = %v, %v; want %v", pos, ok, want)
	}
	if _, ok := SchemaErrorPos(f, call, ""); ok {
		t.Error("a note without a pointer was moved")
	}
}
