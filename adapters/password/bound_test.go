package password_test

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tandem/adapters/password"
	"tandem/core"
)

// cheap keeps these tests fast: the bound is on hashes, whatever they cost.
var cheap = password.Params{Memory: 64, Iterations: 1, Parallelism: 1, SaltLength: 16, KeyLength: 32}

// TestAtMostSlotsHashesAtOnce: however many callers, Hash and Verify
// together never run more than Slots argon2id computations at once.
func TestAtMostSlotsHashesAtOnce(t *testing.T) {
	t.Parallel()
	h := password.NewBounded(cheap, password.Bound{Slots: 3, Wait: time.Minute})
	stored, err := password.New(cheap).Hash("pa55word!")
	if err != nil {
		t.Fatal(err)
	}
	var now, peak atomic.Int32
	h.SetInSlot(func() {
		n := now.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(10 * time.Millisecond)
		now.Add(-1)
	})
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			var err error
			if i%2 == 0 {
				_, err = h.Hash("pa55word!")
			} else {
				_, err = h.Verify(stored, "pa55word!")
			}
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if p := peak.Load(); p != 3 {
		t.Fatalf("at most %d hashes ran at once, want exactly the 3 slots", p)
	}
}

// TestBusyAfterTheWait holds every slot: the next Hash and Verify wait the
// Bound's Wait and give up with 503 busy and a Retry-After; one that is
// waiting when a slot frees gets it.
func TestBusyAfterTheWait(t *testing.T) {
	t.Parallel()
	const wait = 300 * time.Millisecond
	h := password.NewBounded(cheap, password.Bound{Slots: 2, Wait: wait})
	stored, err := password.New(cheap).Hash("pa55word!")
	if err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}, 8), make(chan struct{})
	h.SetInSlot(func() { entered <- struct{}{}; <-release })
	holders := make(chan error, 2)
	for range 2 {
		go func() { _, err := h.Hash("holder"); holders <- err }()
	}
	<-entered
	<-entered

	for name, call := range map[string]func() error{
		"Hash":   func() error { _, err := h.Hash("pa55word!"); return err },
		"Verify": func() error { _, err := h.Verify(stored, "pa55word!"); return err },
	} {
		start, done := time.Now(), make(chan error, 1)
		go func() { done <- call() }()
		var err error
		select {
		case err = <-done:
		case <-entered:
			t.Fatalf("%s hashed without a slot", name)
		case <-time.After(wait + 10*time.Second):
			t.Fatalf("%s still waiting long after the %v wait", name, wait)
		}
		var ce *core.Error
		if !errors.As(err, &ce) || ce.Kind != core.KindUnavailable || ce.Code != "busy" || ce.RetryAfter <= 0 || ce.Message == "" {
			t.Fatalf("%s with every slot held: got %#v, want 503 busy with a Retry-After", name, err)
		}
		if d := time.Since(start); d < wait {
			t.Fatalf("%s gave up after %v, before the %v wait", name, d, wait)
		}
	}

	waiting := make(chan error, 1)
	go func() { ok, err := h.Verify(stored, "pa55word!"); waiting <- errors.Join(err, boolErr(ok)) }()
	time.Sleep(wait / 6)
	close(release) // the holders finish; the waiting call takes a freed slot
	if err := <-waiting; err != nil {
		t.Fatalf("a call waiting when a slot freed: %v", err)
	}
	for range 2 {
		if err := <-holders; err != nil {
			t.Fatal(err)
		}
	}
}

func boolErr(ok bool) error {
	if !ok {
		return errors.New("Verify = false, want true")
	}
	return nil
}
