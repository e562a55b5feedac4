package starhost

import (
	"errors"
	"io/fs"
	"os"
	"sync"

	"github.com/crystal-star/crystal-star/trust"
)

// trustCache keeps the trust file parsed and indexed until the file
// changes. Admission asks for every installed plugin at start and on every
// re-evaluation (after each reload); reading and parsing the whole file each
// time made starting n granted plugins quadratic. One stat per question
// tells whether the file is still the one indexed: the store replaces it
// atomically (a new file), and any other write changes its time or size.
type trustCache struct {
	mu    sync.Mutex
	valid bool
	info  fs.FileInfo // the file indexed; nil when it did not exist
	index *trust.Index
}

// trustIndex returns the index of the trust file as it is now.
func (h *Host) trustIndex() (*trust.Index, error) {
	st, statErr := os.Stat(h.trustFile())
	c := &h.trustCache
	c.mu.Lock()
	defer c.mu.Unlock()
	absent := errors.Is(statErr, fs.ErrNotExist)
	if c.valid && (absent && c.info == nil || statErr == nil && c.info != nil && os.SameFile(c.info, st) &&
		c.info.ModTime().Equal(st.ModTime()) && c.info.Size() == st.Size()) {
		return c.index, nil
	}
	f, err := h.trustStore().Load()
	if err != nil {
		c.valid = false
		return nil, err
	}
	c.valid, c.index, c.info = statErr == nil || absent, f.Index(), st
	if absent {
		c.info = nil
	}
	return c.index, nil
}
