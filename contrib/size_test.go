package contrib

import "testing"

// memory_limit values read and print back as written.
func TestByteSizeRoundTrip(t *testing.T) {
	for in, want := range map[string]int64{
		"512MiB": 512 << 20, "1GiB": 1 << 30, " 64 KiB ": 64 << 10, "1048576": 1 << 20,
		"64MB": 64_000_000, "2TiB": 2 << 40, "100B": 100,
	} {
		got, err := ParseByteSize(in)
		if err != nil || got != want {
			t.Errorf("ParseByteSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "lots", "-1MiB", "0", "1.5GiB", "99999999999TiB", "1 XB"} {
		if n, err := ParseByteSize(in); err == nil {
			t.Errorf("ParseByteSize(%q) = %d; want an error", in, n)
		}
	}
	for n, want := range map[int64]string{512 << 20: "512MiB", 1 << 30: "1GiB", 1536 << 10: "1536KiB", 1000: "1000B"} {
		if got := FormatByteSize(n); got != want {
			t.Errorf("FormatByteSize(%d) = %q, want %q", n, got, want)
		}
	}
}
