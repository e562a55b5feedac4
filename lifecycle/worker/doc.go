// Package worker is the host side of process isolation (issue 11): a
// contrib.Activator that runs each plugin generation in a worker
// subprocess — the host binary re-executed — and talks to it over the
// contrib/wire channel on the worker's stdin and stdout.
//
// The worker gets only the bundle snapshot the lifecycle hands the
// activator (fingerprint and trust checks stay in the host). It runs under
// an address-space limit it applies to itself before any plugin code runs
// (RLIMIT_AS), a watchdog here that reads its resident size, and a
// wall-clock limit per callback. A worker that exceeds a limit, crashes, or
// writes garbage is killed; its calls in flight end with the cause, and the
// plugin is faulted through ActivationRequest.Fault with ResourceExhausted,
// CallbackTimeout or WorkerFailed. A worker never outlives its host: it gets
// SIGKILL when the host dies (Linux parent-death signal) and exits when its
// stdin closes.
//
// The package imports no Starlark: the host services a worker calls back
// are answered by a Bridge the embedder supplies (builtins/worker.HostSide).
package worker
