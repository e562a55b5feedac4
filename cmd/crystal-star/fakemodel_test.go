package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/crystal-star/crystal-star/starhost/models/modelfake"
)

// cmdFakeModel runs `fakemodel [PROTOCOL] [FILE...]`: it starts a local
// model server (modelfake: all six built-in wire formats) for the rest of
// the scenario, sets $MODEL_URL to its base URL and $MODEL_ENDPOINT to the
// endpoint of PROTOCOL (default openai), and replaces the texts
// MODEL_ENDPOINT and MODEL_URL in each FILE (a providers.json) with them.
// It also serves a toy "acme" protocol under /acme/ (for client
// factories), and appends one line per request to
// $WORK/model-requests.log: method, path, the credential header
// (Authorization, x-api-key or x-goog-api-key) and the body. The models
// with special behaviour (slow, fail, missing, busy, down, leaky, garbled,
// refuse, ...) are modelfake's.
func cmdFakeModel(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: fakemodel [PROTOCOL] [FILE...]")
	}
	srv := modelfake.Start()
	ts.Defer(srv.Close)
	protocol := "openai"
	if len(args) > 0 && srv.Endpoint(args[0]) != "" {
		protocol, args = args[0], args[1:]
	}
	logPath := ts.MkAbs("model-requests.log")
	var mu sync.Mutex
	srv.OnRequest(func(r modelfake.Request) {
		mu.Lock()
		defer mu.Unlock()
		f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%s %s auth=%q %s\n", r.Method, r.Path, r.Auth(), r.Body)
			f.Close()
		}
	})
	srv.Handle("/acme/", http.HandlerFunc(fakeAcme))
	ts.Setenv("MODEL_URL", srv.URL)
	ts.Setenv("MODEL_ENDPOINT", srv.Endpoint(protocol))
	for _, name := range args {
		data, err := os.ReadFile(ts.MkAbs(name))
		ts.Check(err)
		text := strings.ReplaceAll(string(data), "MODEL_ENDPOINT", srv.Endpoint(protocol))
		ts.Check(os.WriteFile(ts.MkAbs(name), []byte(strings.ReplaceAll(text, "MODEL_URL", srv.URL)), 0o644))
	}
}

// fakeAcme is the toy protocol of the client-factory scenarios: it takes
// {"q": text, "model": name} and answers {"answer": ...}.
func fakeAcme(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Q     string `json:"q"`
		Model string `json:"model"`
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Acme", "yes")
	_ = json.NewEncoder(w).Encode(map[string]any{"answer": "acme " + req.Model + " says: " + req.Q, "used": 7})
}
