package amount

import "testing"

func TestFormatAmount(t *testing.T) {
	for _, c := range []struct {
		name string
		v    int64
		want string
	}{{"cpu", 12000, "12 CPU"}, {"cpu", 1500, "1.5 CPU"}, {"memory", 24 << 30, "24 GiB"}, {"memory", 3 << 29, "1.5 GiB"},
		{"memory", 512 << 20, "512 MiB"}, {"pods", 40, "40 pods"}, {"nvidia.com/gpu", 2, "2 nvidia.com/gpu"}} {
		if got := Format(c.name, c.v); got != c.want {
			t.Errorf("Format(%s, %d) = %q, want %q", c.name, c.v, got, c.want)
		}
	}
}
