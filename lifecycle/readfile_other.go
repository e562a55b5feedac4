//go:build !unix

package lifecycle

import (
	"io"
	"os"
)

// readCapped reads the file at name, but never more than room+1 bytes.
func readCapped(name string, room int) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, int64(room)+1))
}
