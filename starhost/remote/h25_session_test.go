package remote_test

import (
	"context"

	"github.com/crystal-star/crystal-star/starhost"
)

// mainThread is thread "" of a new session of h.
func mainThread(h *starhost.Host) *starhost.Thread {
	s, err := h.NewSession(context.Background(), starhost.SessionOptions{})
	if err != nil {
		panic(err)
	}
	return s.Thread("")
}
