package starhost

import (
	"fmt"
	"strconv"
	"strings"
)

// parseByteSize reads a size such as "512MiB", "1GiB", "64KiB", "100MB" or
// a plain number of bytes. Units are binary (KiB, MiB, GiB) or decimal (KB,
// MB, GB); the result must be positive.
func parseByteSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("%q is not a size such as \"512MiB\"", s)
	}
	return n * mult, nil
}
