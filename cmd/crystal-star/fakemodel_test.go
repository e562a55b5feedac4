package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdFakeModel runs `fakemodel [FILE...]`: it starts a local model server
// for the rest of the scenario, sets $MODEL_URL to its base URL and
// replaces the text MODEL_URL in each FILE (a providers.json) with it. It
// speaks the
// OpenAI chat-completions protocol under /v1/chat/completions and a toy
// "acme" protocol under /acme/ (for client factories), and appends one line
// per request to $WORK/model-requests.log: method, path, the Authorization
// (or x-api-key) header and the body. Models with special behaviour:
// "slow" answers only when the request is cancelled (or after 30s),
// "fail" answers 401, "leaky" answers 500 with the request's auth header
// in the body.
func cmdFakeModel(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: fakemodel [FILE...]")
	}
	logPath := ts.MkAbs("model-requests.log")
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		auth := r.Header.Get("Authorization") + r.Header.Get("X-Api-Key")
		mu.Lock()
		f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%s %s auth=%q %s\n", r.Method, r.URL.RequestURI(), auth, body)
			f.Close()
		}
		mu.Unlock()
		if strings.HasPrefix(r.URL.Path, "/acme/") {
			fakeAcme(w, body)
			return
		}
		fakeOpenAI(w, r, body, auth)
	}))
	ts.Defer(srv.Close)
	ts.Setenv("MODEL_URL", srv.URL)
	for _, name := range args {
		data, err := os.ReadFile(ts.MkAbs(name))
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(name), []byte(strings.ReplaceAll(string(data), "MODEL_URL", srv.URL)), 0o644))
	}
}

func fakeOpenAI(w http.ResponseWriter, r *http.Request, body []byte, auth string) {
	var req struct {
		Model           string `json:"model"`
		ReasoningEffort string `json:"reasoning_effort"`
		ServiceTier     string `json:"service_tier"`
		MaxTokens       int    `json:"max_tokens"`
		Messages        []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	switch req.Model {
	case "slow":
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
		return
	case "fail":
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error":{"message":"invalid api key"}}`)
		return
	case "leaky":
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, `{"error":{"message":"server saw %s"}}`, strings.ReplaceAll(auth, `"`, ""))
		return
	}
	last := req.Messages[len(req.Messages)-1]
	var text string
	images := 0
	if json.Unmarshal(last.Content, &text) != nil {
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		_ = json.Unmarshal(last.Content, &parts)
		for _, p := range parts {
			if p.Type == "text" {
				text += p.Text
			} else {
				images++
			}
		}
	}
	reply := fmt.Sprintf("echo %s effort=%s tier=%s max=%d images=%d msgs=%d: %s", req.Model, orDash(req.ReasoningEffort),
		orDash(req.ServiceTier), req.MaxTokens, images, len(req.Messages), text)
	out := map[string]any{
		"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": reply}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": len(strings.Fields(text)), "completion_tokens": len(strings.Fields(reply))},
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// fakeAcme is the toy protocol of the client-factory scenarios: it takes
// {"q": text, "model": name} and answers {"answer": ...}.
func fakeAcme(w http.ResponseWriter, body []byte) {
	var req struct {
		Q     string `json:"q"`
		Model string `json:"model"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Acme", "yes")
	_ = json.NewEncoder(w).Encode(map[string]any{"answer": "acme " + req.Model + " says: " + req.Q, "used": 7})
}
