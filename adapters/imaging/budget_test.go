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

// isBusy reports a 503 busy with a Retry-After, as the password hasher sends.
func isBusy(err error) bool {
	var e *core.Error
	return errors.As(err, &e) && e.Kind == core.KindUnavailable && e.Code == "busy" && e.RetryAfter > 0 && e.Message != ""
}

// TestPixelBudget: decodes take their declared pixels out of one budget, so
// what waits depends on the size of the images, not on their number.
func TestPixelBudget(t *testing.T) {
	t.Parallel()
	big, small := imagingtest.JPEG(64, 48, 1, false), imagingtest.JPEG(32, 32, 1, false) // 3072 and 1024 pixels
	t.Run("an image that does not fit waits, then is busy; a smaller one goes ahead", func(t *testing.T) {
		t.Parallel()
		const wait = 100 * time.Millisecond
		p := imaging.New(imaging.Config{Concurrency: 8, DecodePixels: 5000, DecodeWait: wait})
		release, err := p.Hold(t.Context(), 3000)
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		start := time.Now()
		if _, err := p.Original(t.Context(), bytes.NewReader(big), images.JPEG); !isBusy(err) {
			t.Fatalf("3072 pixels with 2000 of 5000 free: got %v, want 503 busy", err)
		}
		if d := time.Since(start); d < wait {
			t.Fatalf("busy after %v, before the %v wait", d, wait)
		}
		if _, err := p.Thumbnail(t.Context(), bytes.NewReader(big), images.JPEG, 16); !isBusy(err) {
			t.Fatalf("thumbnail of 3072 pixels with 2000 free: got %v, want 503 busy", err)
		}
		out, err := p.Original(t.Context(), bytes.NewReader(small), images.JPEG)
		if err != nil || out.Width != 32 || out.Height != 32 {
			t.Fatalf("1024 pixels with 2000 free: %dx%d, %v", out.Width, out.Height, err)
		}
	})
	t.Run("a waiting image goes when pixels are given back", func(t *testing.T) {
		t.Parallel()
		p := imaging.New(imaging.Config{Concurrency: 8, DecodePixels: 5000})
		release, err := p.Hold(t.Context(), 3000)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := p.Original(t.Context(), bytes.NewReader(big), images.JPEG)
			done <- err
		}()
		select {
		case err := <-done:
			t.Fatalf("finished while its pixels were held: %v", err)
		case <-time.After(30 * time.Millisecond):
		}
		release()
		if err := <-done; err != nil {
			t.Fatalf("after the pixels were freed: %v", err)
		}
		// All of it was given back: the whole budget can be taken again.
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		release, err = p.Hold(ctx, 5000)
		if err != nil {
			t.Fatalf("pixels leaked: %v", err)
		}
		release()
	})
	t.Run("an image over the whole budget is 413 at once", func(t *testing.T) {
		t.Parallel()
		p := imaging.New(imaging.Config{DecodePixels: 5000})
		release, err := p.Hold(t.Context(), 5000)
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		_, err = p.Original(ctx, bytes.NewReader(imagingtest.PNG(100, 100)), images.PNG)
		var e *core.Error
		if !errors.As(err, &e) || e.Kind != core.KindTooLarge || e.Code != "payload_too_large" ||
			e.Message != "images may have at most 0.005 megapixels" {
			t.Fatalf("got %v, want 413 naming the budget", err)
		}
	})
	t.Run("the caller's deadline wins over busy", func(t *testing.T) {
		t.Parallel()
		p := imaging.New(imaging.Config{DecodePixels: 5000, DecodeWait: time.Minute})
		release, err := p.Hold(t.Context(), 5000)
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Millisecond)
		defer cancel()
		if _, err := p.Original(ctx, bytes.NewReader(small), images.JPEG); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("got %v, want the caller's deadline as it is", err)
		}
	})
}

// TestDefaultBudgetHoldsTwo48MegapixelPhotos: by default two phone photos
// decode at once and a third waits, whatever the number of cores.
func TestDefaultBudgetHoldsTwo48MegapixelPhotos(t *testing.T) {
	t.Parallel()
	const photo = 8000 * 6000
	p := imaging.New(imaging.Config{Concurrency: 64})
	for range 2 {
		release, err := p.Hold(t.Context(), photo)
		if err != nil {
			t.Fatal(err)
		}
		defer release()
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Millisecond)
	defer cancel()
	if _, err := p.Hold(ctx, photo); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a third 48 MP photo: got %v, want it to wait", err)
	}
}

// TestA48MegapixelHeaderIsAdmitted: the default limits let an 8000×6000
// photo (a phone's 48 MP camera) past the header check; this PNG declares
// it and holds no pixels, so it fails only later, as unreadable. (The
// round trip of a real 48 MP photo is in roundtrip_norace_test.go: a
// minute under -race.)
func TestA48MegapixelHeaderIsAdmitted(t *testing.T) {
	t.Parallel()
	_, err := imaging.New(imaging.Config{}).Original(t.Context(), bytes.NewReader(imagingtest.PNGDeclaring(8000, 6000)), images.PNG)
	if err == nil || core.IsKind(err, core.KindTooLarge) || core.IsKind(err, core.KindUnavailable) {
		t.Fatalf("got %v, want refused as unreadable, not for its size", err)
	}
	_, err = imaging.New(imaging.Config{}).Original(t.Context(), bytes.NewReader(imagingtest.PNGDeclaring(10000, 10001)), images.PNG)
	if !core.IsKind(err, core.KindTooLarge) {
		t.Fatalf("100 MP: got %v, want 413", err)
	}
}
