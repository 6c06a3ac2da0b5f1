package web

import (
	"math"
	"slices"
	"sync"
	"time"
)

// Traffic keeps this process's requests of the last TrafficWindow per route
// pattern, minute by minute: counts, errors and a latency histogram, for the
// console's Traffic page. Memory is bounded: TrafficMinutes slots of at most
// one entry per route (the patterns the router knows, and "unmatched").
type Traffic struct {
	mu    sync.Mutex
	slots [TrafficMinutes + 1]trafficSlot // +1: the minute under way
	now   func() time.Time
}

// TrafficMinutes is how many whole minutes the Traffic page shows.
const TrafficMinutes = 15

// TrafficWindow is the span the Traffic page covers.
const TrafficWindow = TrafficMinutes * time.Minute

type routeKey struct{ method, route string }

type trafficSlot struct {
	minute int64 // unix minute this slot counts; others are stale
	routes map[routeKey]*routeCounts
}

// routeCounts are one route's requests in one minute.
type routeCounts struct {
	requests, clientErrors, serverErrors int
	latency                              [latencyBuckets]uint32
}

// The latency histogram: bucket i holds durations up to latencyBound(i),
// from 50 µs growing by a quarter each (a 12% error at most on a
// percentile), the last one everything slower than about 35 s.
const latencyBuckets = 64

func latencyBound(i int) time.Duration {
	return time.Duration(float64(50*time.Microsecond) * math.Pow(1.25, float64(i)))
}

var latencyBounds = func() (b [latencyBuckets]time.Duration) {
	for i := range b {
		b[i] = latencyBound(i)
	}
	return b
}()

func latencyBucket(d time.Duration) int {
	i, _ := slices.BinarySearch(latencyBounds[:], d)
	return min(i, latencyBuckets-1)
}

// NewTraffic keeps nothing yet.
func NewTraffic() *Traffic { return &Traffic{now: time.Now} }

// Record counts one finished request.
func (t *Traffic) Record(method, route string, status int, d time.Duration) {
	minute := t.now().Unix() / 60
	b := latencyBucket(d)
	t.mu.Lock()
	s := &t.slots[minute%int64(len(t.slots))]
	if s.minute != minute || s.routes == nil {
		s.minute = minute
		clear(s.routes)
		if s.routes == nil {
			s.routes = map[routeKey]*routeCounts{}
		}
	}
	rc := s.routes[routeKey{method, route}]
	if rc == nil {
		rc = &routeCounts{}
		s.routes[routeKey{method, route}] = rc
	}
	rc.requests++
	switch {
	case status >= 500:
		rc.serverErrors++
	case status >= 400:
		rc.clientErrors++
	}
	rc.latency[b]++
	t.mu.Unlock()
}

// RouteTraffic is one route over the window.
type RouteTraffic struct {
	Method, Route              string
	Requests                   int
	ClientErrors, ServerErrors int
	P50, P99                   time.Duration       // upper bounds of the histogram buckets that hold them
	PerMinute, ErrorsPerMinute [TrafficMinutes]int // oldest first; errors are 5xx
	P99PerMinute               [TrafficMinutes]time.Duration
}

// TrafficSnapshot is the window: every route, busiest first, and the totals.
type TrafficSnapshot struct {
	Since, Until time.Time
	Routes       []RouteTraffic
	Total        RouteTraffic // Method and Route empty
}

// Snapshot reads the last TrafficMinutes whole minutes and the current one
// (its counts joining the newest minute).
func (t *Traffic) Snapshot() TrafficSnapshot {
	now := t.now()
	current := now.Unix() / 60
	first := current - TrafficMinutes + 1
	type acc struct {
		RouteTraffic
		hist    [latencyBuckets]uint32
		minutes [TrafficMinutes][latencyBuckets]uint32
	}
	routes := map[routeKey]*acc{}
	total := &acc{}
	t.mu.Lock()
	for i := range t.slots {
		s := &t.slots[i]
		if s.minute < first || s.minute > current {
			continue
		}
		m := int(s.minute - first)
		for k, rc := range s.routes {
			a := routes[k]
			if a == nil {
				a = &acc{RouteTraffic: RouteTraffic{Method: k.method, Route: k.route}}
				routes[k] = a
			}
			for _, into := range []*acc{a, total} {
				into.Requests += rc.requests
				into.ClientErrors += rc.clientErrors
				into.ServerErrors += rc.serverErrors
				into.PerMinute[m] += rc.requests
				into.ErrorsPerMinute[m] += rc.serverErrors
				for b, n := range rc.latency {
					into.hist[b] += n
					into.minutes[m][b] += n
				}
			}
		}
	}
	t.mu.Unlock()
	finish := func(a *acc) RouteTraffic {
		a.P50, a.P99 = percentile(a.hist[:], 0.50), percentile(a.hist[:], 0.99)
		for m := range a.minutes {
			a.P99PerMinute[m] = percentile(a.minutes[m][:], 0.99)
		}
		return a.RouteTraffic
	}
	out := TrafficSnapshot{Since: time.Unix(first*60, 0).UTC(), Until: now.UTC(), Total: finish(total)}
	for _, a := range routes {
		out.Routes = append(out.Routes, finish(a))
	}
	slices.SortFunc(out.Routes, func(a, b RouteTraffic) int {
		if a.Requests != b.Requests {
			return b.Requests - a.Requests
		}
		if a.Route != b.Route {
			if a.Route < b.Route {
				return -1
			}
			return 1
		}
		if a.Method < b.Method {
			return -1
		}
		return 1
	})
	return out
}

// percentile is the upper bound of the bucket holding the q-th request; 0
// when there were none.
func percentile(hist []uint32, q float64) time.Duration {
	var n uint64
	for _, c := range hist {
		n += uint64(c)
	}
	if n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(n)))
	var seen uint64
	for i, c := range hist {
		seen += uint64(c)
		if seen >= rank {
			return latencyBounds[i]
		}
	}
	return latencyBounds[len(latencyBounds)-1]
}
