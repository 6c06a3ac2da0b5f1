package imaging_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/jpeg"
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

// TestAccepts48MegapixelPhoto: an 8000×6000 JPEG (a phone's 48 MP camera)
// passes the default limits and comes back whole.
func TestAccepts48MegapixelPhoto(t *testing.T) {
	t.Parallel()
	if testing.Short() || raceDetector {
		t.Skip("encodes, decodes and encodes 48 megapixels: seconds, a minute under -race; nothing in it is concurrent")
	}
	// A flat 4:2:0 image: what phones write, and quick to encode.
	m := image.NewYCbCr(image.Rect(0, 0, 8000, 6000), image.YCbCrSubsampleRatio420)
	for i := range m.Y {
		m.Y[i] = 128
	}
	for i := range m.Cb {
		m.Cb[i], m.Cr[i] = 100, 150
	}
	data := imagingtest.EncodeJPEG(m, 50)
	out, err := imaging.New(imaging.Config{}).Original(t.Context(), bytes.NewReader(data), images.JPEG)
	if err != nil {
		t.Fatalf("48 MP JPEG of %d bytes: %v", len(data), err)
	}
	if out.Width != 8000 || out.Height != 6000 || out.Format != images.JPEG || out.BlurHash == "" {
		t.Fatalf("got %dx%d %s blurhash %q", out.Width, out.Height, out.Format.ContentType, out.BlurHash)
	}
	if c, err := jpeg.DecodeConfig(bytes.NewReader(out.Data)); err != nil || c.Width != 8000 || c.Height != 6000 {
		t.Fatalf("stored file: %+v, %v", c, err)
	}
}
