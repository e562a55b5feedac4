// Package worker is the Starlark side of process isolation (issue 11). In a
// worker process, Serve runs the real builtins.Activator over a
// contrib/wire channel: it receives the bundle snapshot the host hands it,
// activates it, and answers calls of the generation's tools, commands,
// placeholders and attach stages. Host services (notes, facts, the session
// and review views, ctx.env, data directories, the status sink) are called
// back over the same channel through a contrib.Services whose methods are
// remote, so everything Starlark sees is unchanged.
//
// HostSide is the other end of that seam: the host's lifecycle/worker
// package uses it to answer those callbacks with the embedder's services.
// It lives here because only this package knows the builtins interfaces the
// services implement; lifecycle stays free of Starlark.
package worker
