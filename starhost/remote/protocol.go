package remote

// The executor protocol (docs/remote.md): MCP Streamable HTTP at MCPPath
// (stateless, JSON responses), plus a small HTTP endpoint for bundles.
// Every request but the probes carries "Authorization: Bearer TOKEN" when
// the executor has a token.
const (
	// MCPPath serves tools/list and tools/call of the remote tools of
	// every bundle the executor activated.
	MCPPath = "/mcp"
	// BundlesPath + FileName(fp): PUT uploads an archive (201 when taken,
	// 200 when already held; 400 tampered, 403 not granted, 422 not
	// remote-eligible, each with an Answer), GET/HEAD says whether the
	// executor holds it (200) or not (404).
	BundlesPath = "/bundles/"
	// HealthPath answers 200 while the process serves; ReadyPath 200 while
	// it admits calls, 503 once it drains.
	HealthPath = "/healthz"
	ReadyPath  = "/readyz"
	// MetricsPath serves the Prometheus text format.
	MetricsPath = "/metrics"
)

// The _meta keys of a tools/call. A call names the bundle its tool runs
// from and a call id; the answer of a failed call carries its code,
// whether the call never started (then the host may send it to another
// executor) and its cause, under mcpserve.CauseMetaKey: the executor
// answers through mcpserve, as any crystal-star MCP server does.
const (
	MetaBundle     = "crystal-star/bundle"
	MetaCallID     = "crystal-star/call-id"
	MetaCode       = "crystal-star/code"
	MetaNotStarted = "crystal-star/not-started"
)

// Answer is the JSON body of a bundle endpoint's reply.
type Answer struct {
	Code        string   `json:"code,omitempty"`
	Message     string   `json:"message,omitempty"`
	Plugin      string   `json:"plugin,omitempty"`
	Fingerprint string   `json:"fingerprint,omitempty"`
	Tools       []string `json:"tools,omitempty"`
}

// Codes of a call that never started, in Answer.Code and MetaCode.
const (
	// CodeBundleMissing: the executor does not hold the bundle; upload it
	// and call again.
	CodeBundleMissing = "bundle_missing"
	// CodeDraining: the executor is shutting down and admits no call.
	CodeDraining = "executor_draining"
)
