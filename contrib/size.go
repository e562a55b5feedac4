package contrib

import (
	"fmt"
	"strconv"
	"strings"
)

// byteUnits are the suffixes ParseByteSize accepts, longest first so "MiB"
// is tried before "B".
var byteUnits = []struct {
	suffix string
	n      int64
}{
	{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10},
	{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1},
}

// ParseByteSize reads a size such as "512MiB", "1GiB", "64MB" or "1048576"
// (bytes). Binary suffixes (KiB, MiB, GiB, TiB) are powers of 1024, decimal
// ones (KB, MB, GB, TB) powers of 1000. The size must be a positive whole
// number of bytes.
func ParseByteSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range byteUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.n
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not a size: want a positive whole number with an optional unit, such as \"512MiB\" or \"1GiB\"", s)
	}
	if n > (1<<63-1)/mult {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return n * mult, nil
}

// FormatByteSize writes n in the largest binary unit that divides it
// exactly ("512MiB", "1GiB"), else in bytes ("1000B"), so a configured
// limit reads back as it was written.
func FormatByteSize(n int64) string {
	for _, u := range byteUnits[:4] {
		if n >= u.n && n%u.n == 0 {
			return strconv.FormatInt(n/u.n, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}
