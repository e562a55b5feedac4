//go:build unix

package executor

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/starhost/remote"
)

// TestH28_2_ActivationOutlivesTheFirstCaller: a bundle activates under the
// executor's lifetime, not under the context of the request that asked
// first, and each caller waits for it with its own context. The
// activation is held at its trust check (the trust file is a pipe the test
// writes): the first uploader gives up and is answered at once while the
// activation goes on; a second uploader, who waits, gets the bundle active
// with its tool.
func TestH28_2_ActivationOutlivesTheFirstCaller(t *testing.T) {
	x, err := New(Options{Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = x.Shutdown(context.Background()) })
	a := grantedBundle(t, x.opts.Home)
	granted, err := os.ReadFile(x.trustPath())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(x.trustPath()); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(x.trustPath(), 0o600); err != nil {
		t.Skipf("no named pipe here: %v", err)
	}
	h := x.Handler()
	upload := func(ctx context.Context) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequestWithContext(ctx, http.MethodPut, remote.BundlesPath+a.FileName(), bytes.NewReader(a.Data)))
		return w
	}
	first, leave := context.WithCancel(context.Background())
	firstDone := make(chan *httptest.ResponseRecorder)
	go func() { firstDone <- upload(first) }()
	pipe, err := os.OpenFile(x.trustPath(), os.O_WRONLY, 0) // returns once the activation reads the trust file
	if err != nil {
		t.Fatal(err)
	}
	secondDone := make(chan *httptest.ResponseRecorder)
	go func() { secondDone <- upload(context.Background()) }()
	leave()
	select {
	case w := <-firstDone:
		if w.Code != http.StatusServiceUnavailable {
			t.Errorf("the caller who left: %d %s; want 503 (it may ask again)", w.Code, w.Body)
		}
	case <-time.After(time.Minute): // a guard against a hang, not a measure
		t.Fatal("the first caller is held until the activation ends")
	}
	// The activation goes on: the trust file is read, and the bundle starts.
	if err := os.WriteFile(x.trustPath()+".tmp", granted, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(x.trustPath()+".tmp", x.trustPath()); err != nil {
		t.Fatal(err)
	}
	if _, err := pipe.Write(granted); err != nil {
		t.Fatal(err)
	}
	pipe.Close()
	w := <-secondDone
	var ans remote.Answer
	_ = json.Unmarshal(w.Body.Bytes(), &ans)
	if (w.Code != http.StatusCreated && w.Code != http.StatusOK) || !slices.Equal(ans.Tools, []string{"echo_remote"}) {
		t.Fatalf("the caller who waited: %d %+v; want the bundle active with its tool", w.Code, ans)
	}
}
