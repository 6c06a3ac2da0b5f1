package imaging_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"tandem/adapters/imaging"
	"tandem/adapters/imaging/imagingtest"
	"tandem/core"
	"tandem/modules/images"
)

// TestConcurrencyBound holds the only decoding slot, as a decode in
// progress does, and watches the next calls wait for it.
func TestConcurrencyBound(t *testing.T) {
	t.Parallel()
	jpg := imagingtest.JPEG(64, 48, 1, false)
	t.Run("a second call waits until the first is done", func(t *testing.T) {
		t.Parallel()
		p := imaging.New(imaging.Config{Concurrency: 1})
		release, err := p.Hold(t.Context(), 1)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
		defer cancel()
		if _, err := p.Original(ctx, bytes.NewReader(jpg), images.JPEG); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("while the slot is held: got %v, want the deadline as it is", err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := p.Thumbnail(t.Context(), bytes.NewReader(jpg), images.JPEG, 32)
			done <- err
		}()
		select {
		case err := <-done:
			t.Fatalf("finished while the slot was held: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
		release()
		if err := <-done; err != nil {
			t.Fatalf("after the slot was freed: %v", err)
		}
	})
	t.Run("cancelling a waiting call returns it", func(t *testing.T) {
		t.Parallel()
		p := imaging.New(imaging.Config{Concurrency: 1})
		release, err := p.Hold(t.Context(), 1)
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() {
			_, err := p.Original(ctx, bytes.NewReader(jpg), images.JPEG)
			done <- err
		}()
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("got %v, want context.Canceled", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a cancelled call kept waiting")
		}
	})
	t.Run("a call with a cancelled context takes no slot", func(t *testing.T) {
		t.Parallel()
		p := imaging.New(imaging.Config{Concurrency: 1})
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := p.Original(ctx, bytes.NewReader(jpg), images.JPEG); !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v, want context.Canceled", err)
		}
		if _, err := p.Original(t.Context(), bytes.NewReader(jpg), images.JPEG); err != nil {
			t.Fatalf("the slot leaked: %v", err)
		}
	})
	t.Run("refusals from the header do not wait", func(t *testing.T) {
		t.Parallel()
		p := imaging.New(imaging.Config{Concurrency: 1})
		release, err := p.Hold(t.Context(), 1)
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		_, err = p.Original(ctx, bytes.NewReader(imagingtest.PNGDeclaring(200000, 200000)), images.PNG)
		if !core.IsKind(err, core.KindTooLarge) {
			t.Fatalf("got %v, want 413 at once", err)
		}
		_, err = p.Original(ctx, bytes.NewReader([]byte("garbage")), images.PNG)
		if !core.IsKind(err, core.KindUnsupported) {
			t.Fatalf("got %v, want 415 at once", err)
		}
	})
}
