package core

import (
	"context"
	"fmt"
)

// Event is a domain event: a fact another module may react to
// (PartnershipEnded, AccountDeleted...). Events are published after commit.
type Event interface{ EventName() string }

// Listener reacts to events; it ignores the ones it does not know.
// Modules contribute listeners to bootstrap through an fx value group.
type Listener struct {
	Name   string
	Handle func(ctx context.Context, e Event) error
}

// Publisher is the port modules publish through.
type Publisher interface {
	Publish(ctx context.Context, e Event)
}

// Bus delivers each event synchronously to every listener, in registration
// order. A failing listener does not stop the others: the fact is already
// committed, so its error is reported (logged) rather than returned.
type Bus struct {
	listeners []Listener
	report    func(listener string, e Event, err error)
}

// NewBus builds a bus; report receives listener failures and recovered panics.
func NewBus(listeners []Listener, report func(listener string, e Event, err error)) *Bus {
	if report == nil {
		report = func(string, Event, error) {}
	}
	return &Bus{listeners: listeners, report: report}
}

// Subscribe adds listeners after construction: bootstrap connects them once
// the graph is built, because a listener's module may itself publish through
// the bus (a constructor-time dependency would be a cycle). Not for use after
// the app has started.
func (b *Bus) Subscribe(ls ...Listener) { b.listeners = append(b.listeners, ls...) }

func (b *Bus) Publish(ctx context.Context, e Event) {
	for _, l := range b.listeners {
		b.deliver(ctx, l, e)
	}
}

func (b *Bus) deliver(ctx context.Context, l Listener, e Event) {
	defer func() {
		if r := recover(); r != nil {
			b.report(l.Name, e, fmt.Errorf("panic: %v", r))
		}
	}()
	if err := l.Handle(ctx, e); err != nil {
		b.report(l.Name, e, err)
	}
}
