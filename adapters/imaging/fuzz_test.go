package imaging_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"tandem/adapters/imaging"
	"tandem/adapters/imaging/imagingtest"
	"tandem/core"
	"tandem/modules/images"
)

var fuzzFormats = []images.Format{images.JPEG, images.PNG, images.WEBP}

// seeds are real files of every format and shape the processor handles.
func seeds() [][]byte {
	return [][]byte{
		imagingtest.JPEG(32, 16, 6, true),
		imagingtest.JPEG(17, 9, 8, false),
		imagingtest.WithICC(imagingtest.JPEG(16, 16, 1, false), []byte("profile")),
		imagingtest.JPEGDeclaring(65535, 65535),
		imagingtest.PNG(16, 8),
		imagingtest.PNGWithChunk(imagingtest.PNG(8, 8), "eXIf", imagingtest.EXIF(5, true, binary.LittleEndian)),
		imagingtest.PNGWithChunk(imagingtest.PNG(8, 8), "iCCP", []byte("p\x00\x00data")),
		imagingtest.PNGDeclaring(200000, 200000),
		imagingtest.WEBP(16, 8, true),
		imagingtest.WEBP(8, 16, false),
		imagingtest.WEBPWithChunk(imagingtest.WEBP(8, 8, false), "EXIF", imagingtest.EXIF(7, false, binary.BigEndian)),
		imagingtest.LossyWEBP(false),
		imagingtest.LossyWEBP(true),
	}
}

// FuzzOrientation: the container walkers and the TIFF reader never panic
// and always answer an orientation from 1 to 8; a colour profile found is
// never over the bound.
func FuzzOrientation(f *testing.F) {
	for _, s := range seeds() {
		f.Add(s)
	}
	f.Add(imagingtest.EXIF(6, true, binary.BigEndian))
	f.Add(imagingtest.EXIF(3, true, binary.LittleEndian))
	f.Fuzz(func(t *testing.T, data []byte) {
		if o := imaging.TIFFOrientation(data); o < 1 || o > 8 {
			t.Fatalf("TIFF orientation %d", o)
		}
		for _, format := range fuzzFormats {
			if o := imaging.Orientation(data, format); o < 1 || o > 8 {
				t.Fatalf("%s orientation %d", format.Ext, o)
			}
			if p := imaging.ColorProfile(data, format); len(p) > imaging.MaxICC {
				t.Fatalf("%s profile of %d bytes", format.Ext, len(p))
			}
		}
	})
}

// FuzzOriginal: Original never panics, refuses only with 413 or 415, and
// what it accepts comes out as a clean file of the size it reports.
func FuzzOriginal(f *testing.F) {
	for _, s := range seeds() {
		for i := range fuzzFormats {
			f.Add(s, uint8(i))
		}
	}
	p := imaging.New(imaging.Config{MaxPixels: 1 << 20})
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		format := fuzzFormats[int(which)%len(fuzzFormats)]
		got, err := p.Original(t.Context(), bytes.NewReader(data), format)
		if err != nil {
			if k := core.KindOf(err); k != core.KindTooLarge && k != core.KindUnsupported {
				t.Fatalf("refused as %v: %v", k, err)
			}
			return
		}
		_, size := imagingtest.Pixel(t, got.Data)
		if size.X != got.Width || size.Y != got.Height || got.BlurHash == "" {
			t.Fatalf("reported %dx%d %q, decodes as %v", got.Width, got.Height, got.BlurHash, size)
		}
		if imagingtest.HasEXIF(got.Data) {
			t.Fatal("EXIF survived")
		}
	})
}
