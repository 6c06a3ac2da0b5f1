package httpapi

import "testing"

func TestStreamBudget(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		nofile     uint64
		configured int
		want       int
	}{
		{1 << 20, 20000, 20000},   // a generous limit: the cap
		{20000, 20000, 15000},     // a container's default: a quarter kept
		{2048, 20000, 1536},       // the limit the fault run hit
		{1024, 20000, 768},        //
		{512, 20000, 256},         // the reserve's floor
		{256, 20000, 0},           // nothing left for streams
		{100, 20000, 0},           //
		{1 << 20, 10, 10},         // a small cap
		{1<<64 - 1, 20000, 20000}, // unlimited
	} {
		if got := StreamBudget(tc.nofile, tc.configured); got != tc.want {
			t.Errorf("StreamBudget(%d, %d) = %d, want %d", tc.nofile, tc.configured, got, tc.want)
		}
	}
	if n, err := FileLimit(); err != nil || n == 0 {
		t.Fatalf("FileLimit: %d %v", n, err)
	}
}
