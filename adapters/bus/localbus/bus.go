// Package localbus is the in-process Broadcast (TANDEM_BUS=local): one
// process needs nothing else, and its subscribers hear what it publishes at
// once, on the publisher's goroutine.
package localbus

import (
	"context"
	"sync"
	"time"

	"tandem/core"
)

var _ core.Broadcast = (*Bus)(nil)

// Bus delivers each message synchronously to every subscription of its
// topic. A subscription's handler is never called concurrently with itself.
type Bus struct {
	mu   sync.RWMutex
	subs map[string]map[*subscription]struct{}
}

type subscription struct {
	mu     sync.Mutex
	handle func(context.Context, []byte)
}

func New() *Bus { return &Bus{subs: map[string]map[*subscription]struct{}{}} }

// Publish hands data to every subscription of topic before it returns, with
// ctx's values (its trace context) but not its deadline or cancellation.
func (b *Bus) Publish(ctx context.Context, topic string, data []byte) error {
	ctx = context.WithoutCancel(ctx)
	b.mu.RLock()
	subs := make([]*subscription, 0, len(b.subs[topic]))
	for s := range b.subs[topic] {
		subs = append(subs, s)
	}
	b.mu.RUnlock()
	for _, s := range subs {
		s.mu.Lock()
		s.handle(ctx, data)
		s.mu.Unlock()
	}
	return nil
}

// Flush has nothing to wait for: Publish delivered before it returned.
func (b *Bus) Flush(time.Duration) error { return nil }

// OnGap never calls gap: a message published here is delivered before
// Publish returns, so nothing is ever missed.
func (b *Bus) OnGap(func()) func() { return func() {} }

func (b *Bus) OnDisconnect(func()) func() { return func() {} }

// Subscribe adds handle to topic until unsubscribe is called.
func (b *Bus) Subscribe(topic string, handle func(context.Context, []byte)) (func(), error) {
	s := &subscription{handle: handle}
	b.mu.Lock()
	if b.subs[topic] == nil {
		b.subs[topic] = map[*subscription]struct{}{}
	}
	b.subs[topic][s] = struct{}{}
	b.mu.Unlock()
	return func() {
		b.mu.Lock()
		delete(b.subs[topic], s)
		b.mu.Unlock()
	}, nil
}
