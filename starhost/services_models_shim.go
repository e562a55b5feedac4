package starhost

import (
	"context"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
)

// The model plumbing builtins asks services for, forwarded to the Host
// until h12models' services.go holds it (delete this file at the merge).
var (
	_ builtins.ModelSource   = services{}
	_ builtins.SessionSource = services{}
)

func (s services) ModelClient(ctx context.Context, plugin string, role contrib.ModelRole) (contrib.ModelClient, error) {
	return s.h.ModelClient(ctx, plugin, role)
}

func (s services) ModelEpoch(role contrib.ModelRole) uint64 { return s.h.ModelEpoch(role) }

func (s services) Session() *builtins.ModelFacts { return s.h.Session() }

func (s services) Review() *builtins.ReviewFacts { return s.h.Review() }
