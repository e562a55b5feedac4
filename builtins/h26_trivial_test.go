package builtins

import (
	"encoding/json"
	"fmt"
	"testing"

	"go.starlark.net/starlark"
)

// TestH26_4_FromJSONKeysSorted: FromJSON inserts object keys in sorted
// order both below and above the eight keys it sorts without allocating.
func TestH26_4_FromJSONKeysSorted(t *testing.T) {
	for _, n := range []int{0, 1, 3, 8, 9, 20} {
		m := map[string]any{}
		for i := range n {
			m[fmt.Sprintf("k%02d", n-i)] = json.Number(fmt.Sprint(i))
		}
		d := FromJSON(m).(*starlark.Dict)
		keys := d.Keys()
		if len(keys) != n {
			t.Fatalf("%d keys: got %d", n, len(keys))
		}
		for i := 1; i < len(keys); i++ {
			if keys[i-1].(starlark.String) >= keys[i].(starlark.String) {
				t.Errorf("%d keys: not sorted: %v", n, keys)
			}
		}
	}
}
