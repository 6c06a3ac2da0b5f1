// Package bustest is the contract suite of core.Broadcast, run on every
// adapter: what one process publishes, every subscription hears, its own
// included; topics are apart; unsubscribing stops delivery.
package bustest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"

	"tandem/core"
)

// Broadcast runs the suite. newPair returns two handles on one bus, as two
// processes would see it (the same value twice for an in-process bus).
func Broadcast(t *testing.T, newPair func(t *testing.T) (a, b core.Broadcast)) {
	t.Run("every subscription hears every message in order", func(t *testing.T) {
		a, b := newPair(t)
		onA, onB := collect(t, a, "live"), collect(t, b, "live")
		for i := range 50 {
			mustPublish(t, a, "live", fmt.Sprint(i))
		}
		want := make([]string, 50)
		for i := range want {
			want[i] = fmt.Sprint(i)
		}
		onA.wait(t, want)
		onB.wait(t, want)
	})
	t.Run("topics are apart", func(t *testing.T) {
		a, b := newPair(t)
		revoke, live := collect(t, b, "revoke"), collect(t, b, "live")
		mustPublish(t, a, "revoke", "r1")
		mustPublish(t, a, "live", "l1")
		revoke.wait(t, []string{"r1"})
		live.wait(t, []string{"l1"})
	})
	t.Run("unsubscribe stops delivery", func(t *testing.T) {
		a, b := newPair(t)
		gone := &recorder{}
		stop, err := b.Subscribe("live", gone.add)
		if err != nil {
			t.Fatal(err)
		}
		stop()
		kept := collect(t, b, "live")
		mustPublish(t, a, "live", "after")
		kept.wait(t, []string{"after"})
		if got := gone.all(); len(got) != 0 {
			t.Fatalf("an unsubscribed handler got %v", got)
		}
	})
	t.Run("a handler that keeps nothing sees its own copy", func(t *testing.T) {
		a, b := newPair(t)
		got := collect(t, b, "live")
		buf := []byte("first")
		if err := a.Publish(context.Background(), "live", buf); err != nil {
			t.Fatal(err)
		}
		copy(buf, "XXXXX")
		mustPublish(t, a, "live", "second")
		got.wait(t, []string{"first", "second"})
	})
	t.Run("the publisher's trace context reaches the subscriber", func(t *testing.T) {
		a, b := newPair(t)
		heard := make(chan trace.SpanContext, 2)
		stop, err := b.Subscribe("live", func(ctx context.Context, _ []byte) { heard <- trace.SpanContextFromContext(ctx) })
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(stop)
		sent := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5, 6},
			TraceFlags: trace.FlagsSampled})
		ctx, cancel := context.WithCancel(trace.ContextWithSpanContext(context.Background(), sent))
		if err := a.Publish(ctx, "live", []byte("traced")); err != nil {
			t.Fatal(err)
		}
		cancel() // the request is over: delivery does not depend on it
		if err := a.Publish(context.Background(), "live", []byte("untraced")); err != nil {
			t.Fatal(err)
		}
		for i, want := range []trace.SpanContext{sent, {}} {
			select {
			case got := <-heard:
				if got.TraceID() != want.TraceID() || got.SpanID() != want.SpanID() || got.IsSampled() != want.IsSampled() {
					t.Fatalf("message %d arrived with trace %s/%s, want %s/%s", i, got.TraceID(), got.SpanID(), want.TraceID(), want.SpanID())
				}
			case <-time.After(2 * time.Second):
				t.Fatalf("message %d never arrived", i)
			}
		}
	})
}

func mustPublish(t *testing.T, b core.Broadcast, topic, data string) {
	t.Helper()
	if err := b.Publish(context.Background(), topic, []byte(data)); err != nil {
		t.Fatal(err)
	}
	if err := b.Flush(time.Second); err != nil {
		t.Fatal(err)
	}
}

// recorder keeps what a subscription heard.
type recorder struct {
	mu  sync.Mutex
	got []string
}

func (r *recorder) add(_ context.Context, b []byte) {
	r.mu.Lock()
	r.got = append(r.got, string(b))
	r.mu.Unlock()
}

func (r *recorder) all() []string { r.mu.Lock(); defer r.mu.Unlock(); return slices.Clone(r.got) }

// wait fails unless the recorder holds exactly want within 2 s.
func (r *recorder) wait(t *testing.T, want []string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) && len(r.all()) < len(want) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // a late duplicate would show now
	if got := r.all(); !slices.Equal(got, want) {
		t.Fatalf("heard %v, want %v", got, want)
	}
}

func collect(t *testing.T, b core.Broadcast, topic string) *recorder {
	t.Helper()
	r := &recorder{}
	stop, err := b.Subscribe(topic, r.add)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return r
}
