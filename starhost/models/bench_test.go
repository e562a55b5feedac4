package models_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/crystal-star/crystal-star/starhost/models"
	"github.com/crystal-star/crystal-star/starhost/models/modelfake"
	"github.com/crystal-star/crystal-star/starhost/models/modelhttp"
)

// BenchmarkComplete measures one completion per protocol against the local
// fake server, next to BenchmarkRawPost: the same loopback round trip with
// a hand-written chat completions body and no decoding, so the difference
// is what an adapter (SDK or net/http) adds.
func BenchmarkComplete(b *testing.B) {
	srv := modelfake.Start()
	defer srv.Close()
	req := models.Request{Messages: []models.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "hello there"}}, MaxTokens: 64}
	for _, proto := range protocols {
		b.Run(proto, func(b *testing.B) {
			c := client(b, srv, proto, "m", models.Facts{}, false)
			for b.Loop() {
				if _, err := c.Complete(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkRawPost(b *testing.B) {
	srv := modelfake.Start()
	defer srv.Close()
	hc := modelhttp.Client(0)
	body := []byte(`{"model":"m","max_tokens":64,"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hello there"}]}`)
	for b.Loop() {
		resp, err := hc.Post(srv.URL+"/v1/chat/completions", "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatal(resp.Status)
		}
	}
}
