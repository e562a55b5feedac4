package lifecycle

import "testing"

func TestDC15_CompatibilityLine(t *testing.T) {
	tests := []struct {
		want, have string
		ok         bool
	}{
		{"1.2.0", "1.2.0", true},
		{"1.2.0", "1.2.1", true},
		{"1.2.0", "1.9.9", true},
		{"1.2.0", "2.0.0", false},
		{"1.2.0", "1.1.9", false},
		{"1.2.0", "0.9.0", false},
		{"0.2.1", "0.2.1", true},
		{"0.2.1", "0.2.5", true},
		{"0.2.1", "0.3.0", false},
		{"0.2.1", "0.2.0", false},
		{"0.2.1", "1.2.1", false},
		{"0.0.3", "0.0.4", true},
		{"0.0.3", "0.1.0", false},
		{"2.0.0", "2.0.0", true},
		{"2.0.0", "3.1.0", false},
		{"1.2.0", "garbage", false},
		{"garbage", "1.2.0", false},
	}
	for _, tt := range tests {
		t.Run(tt.want+" "+tt.have, func(t *testing.T) {
			if got := compatible(tt.want, tt.have); got != tt.ok {
				t.Errorf("Compatible(%s, %s) = %v, want %v", tt.want, tt.have, got, tt.ok)
			}
		})
	}
}
