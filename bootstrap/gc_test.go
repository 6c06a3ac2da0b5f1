package bootstrap

import (
	"runtime/debug"
	"testing"
)

// Not parallel: the collector's target is the process's.
func TestServeSetsTheCollectorsTargetOnlyWithoutGOGC(t *testing.T) {
	was := debug.SetGCPercent(100)
	defer debug.SetGCPercent(was)
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1)) // TuneGC sets one too
	for _, tc := range []struct {
		name string
		env  map[string]string
		want int
	}{
		{"GOGC unset", map[string]string{}, serveGCPercent},
		{"GOGC set: the operator's", map[string]string{"GOGC": "50"}, 100},
	} {
		debug.SetGCPercent(100)
		TuneGC(func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok })
		if got := debug.SetGCPercent(100); got != tc.want {
			t.Errorf("%s: GC percent %d, want %d", tc.name, got, tc.want)
		}
	}
}
