package worker

import "sync"

// handles numbers the values one side holds for the other: model clients
// the host holds for a worker, codecs a worker holds for the host. Safe for
// concurrent use; the zero value is empty.
type handles[T any] struct {
	mu   sync.Mutex
	m    map[uint64]T
	next uint64
}

func (h *handles[T]) add(v T) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil {
		h.m = map[uint64]T{}
	}
	h.next++
	h.m[h.next] = v
	return h.next
}

func (h *handles[T]) get(id uint64) (T, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	v, ok := h.m[id]
	return v, ok
}

func (h *handles[T]) clear() {
	h.mu.Lock()
	h.m = nil
	h.mu.Unlock()
}

func (h *handles[T]) remove(id uint64) {
	h.mu.Lock()
	delete(h.m, id)
	h.mu.Unlock()
}
