//go:build !race

// Built without the race detector only: it encodes, decodes and encodes 48
// megapixels (seconds; a minute under -race) and nothing in it is
// concurrent. TestA48MegapixelHeaderIsAdmitted runs everywhere.

package imaging_test

import (
	"bytes"
	"image"
	"image/jpeg"
	"testing"

	"tandem/adapters/imaging"
	"tandem/adapters/imaging/imagingtest"
	"tandem/modules/images"
)

// TestAccepts48MegapixelPhoto: an 8000×6000 JPEG (a phone's 48 MP camera)
// passes the default limits and comes back whole.
func TestAccepts48MegapixelPhoto(t *testing.T) {
	t.Parallel()
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
