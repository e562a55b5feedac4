package contrib

import "context"

// Progress receives a tool's progress reports (ctx.progress): done so far,
// total when known (0 means unknown) and an optional message. It is called
// on the tool's goroutine and must not block for long.
type Progress func(done, total float64, message string)

type progressKey struct{}

// WithProgress returns ctx carrying p, for the tool call run under it. The
// caller that can deliver progress (an MCP request with a progress token,
// a console spinner) sets it; elsewhere ctx.progress does nothing.
func WithProgress(ctx context.Context, p Progress) context.Context {
	return context.WithValue(ctx, progressKey{}, p)
}

// ProgressFrom returns the progress receiver of ctx, or nil.
func ProgressFrom(ctx context.Context) Progress {
	p, _ := ctx.Value(progressKey{}).(Progress)
	return p
}
