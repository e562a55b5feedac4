//go:build !unix

package lifecycle

import (
	"io"
	"os"
)

// readSmall reads the file at name, but never more than room+1 bytes.
func readSmall(name string, room int) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, int64(room)+1))
}
