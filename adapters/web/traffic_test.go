package web

import (
	"testing"
	"time"
)

// The ring counts per route and minute, reads percentiles from its
// histogram within a bucket, and forgets what is older than the window.
func TestTrafficWindow(t *testing.T) {
	now := time.Date(2026, 11, 27, 8, 0, 30, 0, time.UTC)
	tr := &Traffic{now: func() time.Time { return now }}
	for i := range 100 {
		d := time.Millisecond
		if i == 99 {
			d = 500 * time.Millisecond
		}
		tr.Record("GET", "/a", 200, d)
	}
	tr.Record("GET", "/a", 503, 2*time.Millisecond)
	tr.Record("POST", "/b", 404, time.Millisecond)

	now = now.Add(5 * time.Minute)
	tr.Record("GET", "/a", 200, time.Millisecond)
	s := tr.Snapshot()
	if len(s.Routes) != 2 || s.Routes[0].Route != "/a" || s.Routes[0].Requests != 102 || s.Routes[1].Requests != 1 {
		t.Fatalf("routes %+v", s.Routes)
	}
	a := s.Routes[0]
	if a.ServerErrors != 1 || a.ClientErrors != 0 || s.Routes[1].ClientErrors != 1 || s.Total.Requests != 103 {
		t.Fatalf("errors: %+v total %+v", a, s.Total)
	}
	if a.P50 < time.Millisecond || a.P50 > 1250*time.Microsecond {
		t.Fatalf("p50 %v, want 1 ms within a bucket", a.P50)
	}
	if a.P99 < 2*time.Millisecond || a.P99 > 2500*time.Microsecond {
		t.Fatalf("p99 %v, want 2 ms within a bucket (the 101st of 102 is the 503's 2 ms)", a.P99)
	}
	if a.PerMinute[TrafficMinutes-6] != 101 || a.PerMinute[TrafficMinutes-1] != 1 || a.ErrorsPerMinute[TrafficMinutes-6] != 1 {
		t.Fatalf("per minute %v errors %v", a.PerMinute, a.ErrorsPerMinute)
	}

	now = now.Add(11 * time.Minute) // the first minute leaves the window
	s = tr.Snapshot()
	if len(s.Routes) != 1 || s.Total.Requests != 1 {
		t.Fatalf("after the window: %+v", s.Routes)
	}
	now = now.Add(TrafficWindow)
	tr.Record("GET", "/c", 200, time.Millisecond) // reuses a stale slot
	if s = tr.Snapshot(); len(s.Routes) != 1 || s.Routes[0].Route != "/c" || s.Total.Requests != 1 {
		t.Fatalf("a reused slot kept old counts: %+v", s.Routes)
	}
}

func BenchmarkTrafficRecord(b *testing.B) {
	tr := NewTraffic()
	for b.Loop() {
		tr.Record("GET", "/api/users/user/:userId", 200, time.Millisecond)
	}
}
