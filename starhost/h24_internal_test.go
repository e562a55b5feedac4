package starhost

import (
	"testing"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/internal/layout"
)

// TestH24_12_ProvidersFileIsLayouts holds the name go doc shows embedders
// equal to the one the host reads (issue 24, point 12).
func TestH24_12_ProvidersFileIsLayouts(t *testing.T) {
	if ProvidersFile != layout.ProvidersFile {
		t.Errorf("starhost.ProvidersFile = %q, layout.ProvidersFile = %q", ProvidersFile, layout.ProvidersFile)
	}
}

// TestH24_12_DefaultLimitsAreTheActivators holds the defaults an embedder
// reads on starhost equal to what the activator applies (issue 24, point
// 12: the Options table named builtins constants).
func TestH24_12_DefaultLimitsAreTheActivators(t *testing.T) {
	if DefaultMemoryLimit != builtins.DefaultMemoryLimit {
		t.Errorf("starhost.DefaultMemoryLimit = %d, builtins' = %d", DefaultMemoryLimit, builtins.DefaultMemoryLimit)
	}
	if DefaultCallbackTimeout != builtins.DefaultCallbackTimeout {
		t.Errorf("starhost.DefaultCallbackTimeout = %s, builtins' = %s", DefaultCallbackTimeout, builtins.DefaultCallbackTimeout)
	}
	l := (&Host{}).baseLimits()
	if l.MemoryLimit != DefaultMemoryLimit || l.CallbackTimeout != DefaultCallbackTimeout {
		t.Errorf("zero Options give %+v; want the documented defaults", l)
	}
}
