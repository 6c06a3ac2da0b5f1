// Package memory implements the repository ports with maps and mutexes: the
// QA profile and the unit-test fakes. Values are copied in and out.
package memory

import (
	"context"
	"sync"
	"time"

	"tandem/modules/throttle"
)

var _ throttle.Repository = (*ThrottleRepo)(nil)

type counterKey struct {
	key    string
	window int64
}

type counter struct {
	hits    int
	expires time.Time
}

// ThrottleRepo keeps counters in a map.
type ThrottleRepo struct {
	mu       sync.Mutex
	counters map[counterKey]counter
}

func NewThrottleRepo() *ThrottleRepo { return &ThrottleRepo{counters: map[counterKey]counter{}} }

func (r *ThrottleRepo) Add(_ context.Context, key string, window, expires time.Time) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := counterKey{key, window.UnixMilli()}
	c := r.counters[k]
	c.hits++
	if c.expires.IsZero() {
		c.expires = expires
	}
	r.counters[k] = c
	return c.hits, nil
}

func (r *ThrottleRepo) Count(_ context.Context, key string, window time.Time) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.counters[counterKey{key, window.UnixMilli()}].hits, nil
}

func (r *ThrottleRepo) Sub(_ context.Context, key string, window time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := counterKey{key, window.UnixMilli()}
	if c, ok := r.counters[k]; ok && c.hits > 0 {
		c.hits--
		r.counters[k] = c
	}
	return nil
}

func (r *ThrottleRepo) Clear(_ context.Context, key string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k := range r.counters {
		if k.key == key {
			delete(r.counters, k)
		}
	}
	return nil
}

func (r *ThrottleRepo) Purge(_ context.Context, before time.Time) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for k, c := range r.counters {
		if c.expires.Before(before) {
			delete(r.counters, k)
			n++
		}
	}
	return n, nil
}
