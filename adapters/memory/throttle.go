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

// ThrottleRepo keeps counters in a table.
type ThrottleRepo struct {
	mu       sync.Mutex
	counters table[counterKey, counter]
}

func NewThrottleRepo() *ThrottleRepo {
	return &ThrottleRepo{counters: newTable[counterKey, counter](nil, nil)}
}

func (r *ThrottleRepo) Add(_ context.Context, key string, window, expires time.Time) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := counterKey{key, window.UnixMilli()}
	c, _ := r.counters.get(k)
	c.hits++
	if c.expires.IsZero() {
		c.expires = expires
	}
	r.counters.put(k, c)
	return c.hits, nil
}

func (r *ThrottleRepo) Count(_ context.Context, key string, window time.Time) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, _ := r.counters.get(counterKey{key, window.UnixMilli()})
	return c.hits, nil
}

func (r *ThrottleRepo) Sub(_ context.Context, key string, window time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := counterKey{key, window.UnixMilli()}
	if c, ok := r.counters.get(k); ok && c.hits > 0 {
		c.hits--
		r.counters.put(k, c)
	}
	return nil
}

func (r *ThrottleRepo) Clear(_ context.Context, key string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.counters.deleteWhere(func(k counterKey, _ counter) bool { return k.key == key })
	return nil
}

func (r *ThrottleRepo) Purge(_ context.Context, before time.Time) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.counters.deleteWhere(func(_ counterKey, c counter) bool { return c.expires.Before(before) })), nil
}
