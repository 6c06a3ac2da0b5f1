// Package mempush is the recording pusher of the memory profile and of the
// tests: it keeps every push and counts it as delivered.
package mempush

import (
	"context"
	"slices"
	"sync"

	"tandem/modules/notifications"
)

var _ notifications.Pusher = (*Outbox)(nil)

// Push is one recorded delivery: a message to one device.
type Push struct {
	Message notifications.Message
	Device  notifications.Device
}

// Outbox records pushes in the order sent. It is safe for concurrent use.
type Outbox struct {
	mu     sync.Mutex
	pushes []Push
}

func New() *Outbox { return &Outbox{} }

// Push records one Push per device; every one is delivered.
func (o *Outbox) Push(_ context.Context, m notifications.Message, to []notifications.Device) []notifications.Delivery {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]notifications.Delivery, len(to))
	for i, d := range to {
		o.pushes = append(o.pushes, Push{Message: m, Device: d})
		out[i] = notifications.Delivery{Outcome: notifications.OutcomeDelivered}
	}
	return out
}

// All returns a copy of every push, oldest first.
func (o *Outbox) All() []Push {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.pushes)
}

// To returns the pushes to the user's devices, oldest first.
func (o *Outbox) To(userID string) []Push {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []Push
	for _, p := range o.pushes {
		if p.Device.UserID == userID {
			out = append(out, p)
		}
	}
	return out
}
