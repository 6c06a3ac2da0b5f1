package sqlstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.uber.org/zap"

	"tandem/core"
)

func TestBreakerOpensAfterTwoFailedProbesAndClosesOnTheFirstAnswer(t *testing.T) {
	t.Parallel()
	down := errors.New("i/o timeout")
	cases := []struct {
		probes []error
		open   bool
	}{
		{nil, false},
		{[]error{down}, false},                       // one miss is not an outage
		{[]error{down, down}, true},                  // two in a row
		{[]error{down, nil, down}, false},            // not in a row
		{[]error{down, down, down, nil}, false},      // the first answer closes it
		{[]error{down, down, nil, down, down}, true}, // and it opens again
	}
	for _, tc := range cases {
		b := &Breaker{trips: 2, log: zap.NewNop()}
		for _, err := range tc.probes {
			b.observe(err)
		}
		if b.Open() != tc.open {
			t.Fatalf("%v: open %v", tc.probes, b.Open())
		}
	}
}

// Opening cancels the contexts of the requests in flight, with a 503 cause;
// a request already finished, and those guarded after it closes, are not.
func TestBreakerOpeningCancelsTheRequestsInFlight(t *testing.T) {
	t.Parallel()
	down := errors.New("i/o timeout")
	b := &Breaker{trips: 2, log: zap.NewNop()}
	b.trip.Store(newTripwire())
	waiting, _ := b.Guard(context.Background())
	done, release := b.Guard(context.Background())
	release()
	b.observe(down)
	if waiting.Err() != nil {
		t.Fatal("cancelled by one missed probe")
	}
	b.observe(down)
	settle(waiting)
	if !errors.Is(context.Cause(waiting), ErrOpened) || !core.IsKind(context.Cause(waiting), core.KindUnavailable) {
		t.Fatalf("waiting request on opening: %v", context.Cause(waiting))
	}
	if !errors.Is(context.Cause(done), context.Canceled) || errors.Is(context.Cause(done), ErrOpened) {
		t.Fatalf("finished request: %v", context.Cause(done))
	}
	// let in just before the opening, guarded just after: cancelled too
	late, _ := b.Guard(context.Background())
	settle(late)
	if !errors.Is(context.Cause(late), ErrOpened) {
		t.Fatalf("guarded while open: %v", context.Cause(late))
	}
	b.observe(nil)
	after, release := b.Guard(context.Background())
	defer release()
	b.observe(down)
	time.Sleep(10 * time.Millisecond) // the cancellation runs in a goroutine of its own
	if after.Err() != nil {
		t.Fatal("a request after the breaker closed was cancelled by one missed probe")
	}
}

// settle waits a moment for ctx's cancellation (context.AfterFunc runs it
// in a goroutine of its own).
func settle(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-time.After(time.Second):
	}
}
