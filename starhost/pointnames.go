package starhost

// PointName names a contribution point of the table (DC2, docs/points.md):
// the name Resolve, Change and PromptSection use.
type PointName string

// The contribution points, in table order.
const (
	PointTools              PointName = "tool"
	PointCommands           PointName = "command"
	PointPromptSection      PointName = "prompt_section"
	PointPromptAssembler    PointName = "prompt_assembler"
	PointChatContext        PointName = "chat_context"
	PointThreadContext      PointName = "thread_context"
	PointContextTransform   PointName = "context_transform"
	PointChatMiddleware     PointName = "chat_middleware"
	PointDispatchPolicy     PointName = "dispatch_policy"
	PointDispatchApproval   PointName = "dispatch_approval"
	PointDispatchRecorder   PointName = "dispatch_recorder"
	PointDispatchNormalizer PointName = "dispatch_normalizer"
	PointThreadObserver     PointName = "thread_observer"
	PointTurnObserver       PointName = "turn_observer"
	PointThreadSignal       PointName = "thread_signal"
	PointToolRestriction    PointName = "tool_restriction"
	PointCompactionSummary  PointName = "compaction_summarizer"
	PointCompactablePolicy  PointName = "compactable_policy"
	PointSubagentRuntime    PointName = "subagent_runtime"
	PointTraceSink          PointName = "trace_sink"
	PointCommitMessage      PointName = "commit_message_suggester"
	PointWelcome            PointName = "welcome_suggester"
	PointToolProvider       PointName = "tool_provider"
	PointResourcePublisher  PointName = "resource_publisher"
)
