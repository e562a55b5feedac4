package check

// SetWorkerStarted makes w call f whenever it starts a worker process.
func SetWorkerStarted(w *Workers, f func()) { w.started = f }
