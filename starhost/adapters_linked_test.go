package starhost_test

// starhost links no model adapter and no formatter (lean_test.go keeps it
// so). Its tests speak every built-in protocol to the fake model server and
// expect check's Style* warnings, as the CLI does, so the test binary links
// all six adapters and starhost/format.
import (
	_ "github.com/crystal-star/crystal-star/starhost/format"
	_ "github.com/crystal-star/crystal-star/starhost/models/builtin"
)
