package starhost

import (
	"context"

	"github.com/crystal-star/crystal-star/contrib"
)

// WithProgress returns ctx carrying a receiver of the progress a tool called
// under it reports with ctx.progress(done, total = None, message = None):
// done, total (0 when not given) and the message. Without one, ctx.progress
// does nothing. The MCP server sets it when the client sent a progress
// token; a console may drive a spinner with it. report runs on the tool's
// goroutine.
func WithProgress(ctx context.Context, report func(done, total float64, message string)) context.Context {
	return contrib.WithProgress(ctx, report)
}
