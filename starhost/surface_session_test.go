package starhost_test

import (
	"reflect"
	"testing"

	"github.com/crystal-star/crystal-star/starhost"
)

// The plumbing builtins calls (model clients and epochs, the timer clock,
// ctx.env) is not on Host, and the session facts have one home: Session.
func TestHostLeavesPlumbingAndSessionToSession(t *testing.T) {
	host := reflect.TypeOf(&starhost.Host{})
	for _, m := range []string{"ModelEpoch", "ModelClient", "TimerClock", "Environment", "SetSession",
		"Review", "SetReview", "SelectModel", "SelectReviewModel", "SetThinking", "SetReviewThinking",
		"SetServiceTier", "SetSpeed", "SaveSession", "Facts", "SetFacts", "Providers", "Connect",
		"SessionStarted", "SessionEnded"} {
		if _, ok := host.MethodByName(m); ok {
			t.Errorf("Host still has %s", m)
		}
	}
	session := reflect.TypeOf(&starhost.Session{})
	for _, m := range []string{"Model", "SetModel", "Review", "SetReview", "SelectModel", "SelectReviewModel",
		"SetThinking", "SetReviewThinking", "SetServiceTier", "SetSpeed", "Save", "Facts", "SetFacts",
		"Connect", "Start", "End"} {
		if _, ok := session.MethodByName(m); !ok {
			t.Errorf("Session has no %s", m)
		}
	}
}
