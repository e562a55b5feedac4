package starhost_test

import (
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/starhost"
)

// TestH29_5_ModelResponseUsage: the model_response hook's usage always has
// input_tokens, output_tokens and total_tokens as ints — 0 when the
// embedder reported nothing, the total the sum when not given — and keeps
// the other counts the embedder reports (docs/api.md, "The usage dict").
func TestH29_5_ModelResponseUsage(t *testing.T) {
	h, notes, _ := pointsHost(t, starhost.Options{}, map[string]string{"a": `
def seen(ctx, ev):
    u = ev["usage"]
    print("usage", u["input_tokens"], u["output_tokens"], u["total_tokens"], type(u["total_tokens"]), u.get("cached_input_tokens"))
    return None

contribute(hooks = [hook("model_response", seen)])
`})
	h.ModelResponse(bg, "t", "turn", "stop", nil, map[string]any{"input_tokens": 12, "output_tokens": 3.0, "cached_input_tokens": 8})
	h.ModelResponse(bg, "t", "turn", "stop", nil, nil)
	h.ModelResponse(bg, "t", "turn", "stop", nil, map[string]any{"input_tokens": int64(5), "total_tokens": 9})
	var got []string
	for _, n := range notes.with("Print") {
		got = append(got, n.Message[strings.Index(n.Message, "usage"):])
	}
	want := []string{"usage 12 3 15 int 8", "usage 0 0 0 int None", "usage 5 0 9 int None"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the hook saw\n%q\nwant\n%q", got, want)
	}
}
