package starhost

import (
	"testing"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/starhost/models"
)

// TestCodesMatchTheInternalOnes: starhost spells its codes and constants
// out (so go doc shows their values), and they must stay equal to the
// values the registry, the builtins and the adapters produce.
func TestCodesMatchTheInternalOnes(t *testing.T) {
	for _, c := range []struct {
		own      Code
		internal string
	}{
		{ErrUnknownTool, contrib.ErrUnknownTool},
		{ErrInvalidArguments, contrib.ErrInvalidArguments},
		{ErrToolUnavailable, contrib.ErrToolUnavailable},
		{ErrCancelled, contrib.ErrCancelled},
		{ErrToolInterrupted, contrib.ErrToolInterrupted},
		{ErrToolFailed, contrib.ErrToolFailed},
		{ErrInvalidOutput, contrib.ErrInvalidOutput},
		{ErrContentTooLarge, contrib.ErrContentTooLarge},
		{ErrPointFailed, contrib.ErrPointFailed},
		{ThinkingDefault, models.ThinkingDefault},
		{ThinkingOff, models.ThinkingOff},
		{TargetIdentity, contrib.TargetIdentity},
		{TargetToolUse, contrib.TargetToolUse},
		{TargetResponseStyle, contrib.TargetResponseStyle},
		{TargetEnvironment, contrib.TargetEnvironment},
		{TargetMemory, contrib.TargetMemory},
		{TargetPolicy, contrib.TargetPolicy},
		{TargetApproval, contrib.TargetApproval},
		{TargetRecorder, contrib.TargetRecorder},
		{TargetNormalizer, contrib.TargetNormalizer},
		{TargetCompactionSummary, contrib.TargetCompactionSummary},
		{TargetCompactable, contrib.TargetCompactable},
		{TargetCommitMessage, contrib.TargetCommitMessage},
		{TargetWelcome, contrib.TargetWelcome},
		{Code(CauseStepBudget), contrib.CauseStepBudget},
		{Code(CauseMemoryLimit), contrib.CauseMemoryLimit},
		{Code(CauseCallbackTimeout), contrib.CauseCallbackTimeout},
		{Code(CauseWorkerFailed), contrib.CauseWorkerFailed},
		{Code(CauseCollateral), contrib.CauseCollateral},
	} {
		if string(c.own) != c.internal {
			t.Errorf("starhost has %q where the internals have %q", c.own, c.internal)
		}
	}
	if MaxMediaTypeBytes != contrib.MaxMediaTypeBytes {
		t.Errorf("MaxMediaTypeBytes %d, contrib %d", MaxMediaTypeBytes, contrib.MaxMediaTypeBytes)
	}
	if DefaultModelTimeout != models.DefaultTimeout {
		t.Errorf("DefaultModelTimeout %v, models %v", DefaultModelTimeout, models.DefaultTimeout)
	}
	for _, target := range []string{TargetHistoryTrim, TargetPromptCache} {
		if !pointTargetKnown(target) {
			t.Errorf("target %q is no point's named default", target)
		}
	}
}

// pointTargetKnown reports whether some point names target as a default.
func pointTargetKnown(target string) bool {
	for _, p := range contrib.Points {
		for _, t := range p.Targets {
			if t.Name == target {
				return true
			}
		}
	}
	return false
}

// TestPointNamesMatchTheTable: starhost names every row of the point table,
// in table order, with the table's names.
func TestPointNamesMatchTheTable(t *testing.T) {
	own := []PointName{PointTools, PointCommands, PointPromptSection, PointPromptAssembler, PointChatContext,
		PointThreadContext, PointContextTransform, PointChatMiddleware, PointDispatchPolicy, PointDispatchApproval,
		PointDispatchRecorder, PointDispatchNormalizer, PointThreadObserver, PointTurnObserver, PointThreadSignal,
		PointToolRestriction, PointCompactionSummary, PointCompactablePolicy, PointSubagentRuntime, PointTraceSink,
		PointCommitMessage, PointWelcome, PointToolProvider, PointResourcePublisher}
	if len(own) != len(contrib.Points) {
		t.Fatalf("starhost names %d points; the table has %d", len(own), len(contrib.Points))
	}
	for i, p := range contrib.Points {
		if string(own[i]) != string(p.Name) {
			t.Errorf("point %d: starhost says %q, the table %q", i, own[i], p.Name)
		}
	}
}
