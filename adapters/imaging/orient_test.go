package imaging_test

import (
	"encoding/binary"
	"image"
	"image/color"
	"image/draw"
	"math/rand/v2"
	"testing"

	"github.com/buckket/go-blurhash"
	"github.com/buckket/go-blurhash/base83"

	"tandem/adapters/imaging"
	"tandem/adapters/imaging/imagingtest"
	"tandem/modules/images"
)

func TestTIFFOrientation(t *testing.T) {
	t.Parallel()
	mm := imagingtest.EXIF(6, true, binary.BigEndian)
	ii := imagingtest.EXIF(8, true, binary.LittleEndian)
	long := imagingtest.EXIF(3, false, binary.BigEndian)
	long[8+2+12+2+1] = 4 // Orientation (the second entry) typed LONG: value 3<<16 in MM
	cases := []struct {
		name string
		tiff []byte
		want int
	}{
		{"big-endian", mm, 6},
		{"little-endian", ii, 8},
		{"every value", imagingtest.EXIF(7, false, binary.LittleEndian), 7},
		{"no orientation tag", imagingtest.EXIF(0, true, binary.BigEndian), 1},
		{"value 0", imagingtest.EXIF(0x0000, false, binary.BigEndian), 1},
		{"value 9", imagingtest.EXIF(9, false, binary.BigEndian), 1},
		{"value 0xFFFF", imagingtest.EXIF(0xFFFF, false, binary.BigEndian), 1},
		{"LONG out of range", long, 1},
		{"empty", nil, 1},
		{"bad byte order", append([]byte("MI"), mm[2:]...), 1},
		{"bad magic", append([]byte("MM\x00\x2B"), mm[4:]...), 1},
		{"IFD offset past the end", append(mm[:4:4], 0xFF, 0xFF, 0xFF, 0xF0), 1},
		{"IFD offset at the last byte", append(mm[:4:4], 0, 0, 0, byte(len(mm)-1)), 1},
		{"entries cut off", mm[:8+2+12+6], 1},
		{"entry count larger than the block", append(mm[:8:8], 0xFF, 0xFF), 1},
		{"header only", mm[:8], 1},
	}
	for _, tc := range cases {
		if got := imaging.TIFFOrientation(tc.tiff); got != tc.want {
			t.Errorf("%s: got %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestOrientationFromContainers(t *testing.T) {
	t.Parallel()
	exif := imagingtest.ExifPayload(imagingtest.EXIF(5, false, binary.BigEndian))
	plain := imagingtest.EncodeJPEG(imagingtest.Pattern(16, 16, 1, false), 90)
	cases := []struct {
		name   string
		data   []byte
		format images.Format
		want   int
	}{
		{"jpeg", imagingtest.JPEG(16, 16, 6, true), images.JPEG, 6},
		{"jpeg with fill bytes before APP1", append(append([]byte{0xFF, 0xD8, 0xFF, 0xFF}, imagingtest.Segment(0xE1, exif)...), plain[2:]...), images.JPEG, 5},
		{"jpeg, first of two Exif blocks", imagingtest.InsertSegments(plain, imagingtest.Segment(0xE1, exif),
			imagingtest.Segment(0xE1, imagingtest.ExifPayload(imagingtest.EXIF(3, false, binary.BigEndian)))), images.JPEG, 5},
		{"jpeg, XMP APP1 is not Exif", imagingtest.InsertSegments(plain, imagingtest.Segment(0xE1, []byte(imagingtest.XMPNamespace+"\x00MM\x00*"))), images.JPEG, 1},
		{"jpeg, Exif after the scan is ignored", append(plain[:len(plain)-2:len(plain)-2], imagingtest.Segment(0xE1, exif)...), images.JPEG, 1},
		{"jpeg segment length past the end", append([]byte{0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xFF}, exif...), images.JPEG, 1},
		{"png eXIf", imagingtest.PNGWithChunk(imagingtest.PNG(8, 8), "eXIf", imagingtest.EXIF(2, false, binary.LittleEndian)), images.PNG, 2},
		{"webp EXIF", imagingtest.WEBPWithChunk(imagingtest.WEBP(8, 8, false), "EXIF", imagingtest.EXIF(4, false, binary.BigEndian)), images.WEBP, 4},
		{"jpeg bytes read as png", imagingtest.JPEG(16, 16, 6, true), images.PNG, 1},
		{"none", imagingtest.WEBP(8, 8, false), images.WEBP, 1},
	}
	for _, tc := range cases {
		if got := imaging.Orientation(tc.data, tc.format); got != tc.want {
			t.Errorf("%s: got %d, want %d", tc.name, got, tc.want)
		}
	}
}

// everyType holds a w×h image of each type the decoders return, of
// random pixels, and shapes that take the slow paths.
func everyType(w, h int) map[string]image.Image {
	r := image.Rect(0, 0, w, h)
	rng := rand.New(rand.NewPCG(3, 4))
	fill := func(bufs ...[]byte) {
		for _, b := range bufs {
			for i := range b {
				b[i] = uint8(rng.Uint32())
			}
		}
	}
	ycc := func(r image.Rectangle, ratio image.YCbCrSubsampleRatio) image.Image {
		m := image.NewYCbCr(r, ratio)
		fill(m.Y, m.Cb, m.Cr)
		return m
	}
	pal := image.NewPaletted(r, color.Palette{color.Black, color.White, imagingtest.Red, color.NRGBA{0, 0, 255, 128}})
	for i := range pal.Pix {
		pal.Pix[i] = uint8(rng.IntN(4))
	}
	nycca := image.NewNYCbCrA(r, image.YCbCrSubsampleRatio420)
	cmyk, gray, gray16, alpha := image.NewCMYK(r), image.NewGray(r), image.NewGray16(r), image.NewAlpha(r)
	nrgba, nrgba64 := image.NewNRGBA(r), image.NewNRGBA64(r)
	fill(nycca.Y, nycca.Cb, nycca.Cr, nycca.A, cmyk.Pix, gray.Pix, gray16.Pix, alpha.Pix, nrgba.Pix, nrgba64.Pix)
	rgba, rgba64 := image.NewRGBA(r), image.NewRGBA64(r)
	draw.Draw(rgba, r, nrgba, image.Point{}, draw.Src)
	draw.Draw(rgba64, r, nrgba64, image.Point{}, draw.Src)
	return map[string]image.Image{
		"ycbcr 4:4:4": ycc(r, image.YCbCrSubsampleRatio444), "ycbcr 4:2:2": ycc(r, image.YCbCrSubsampleRatio422),
		"ycbcr 4:2:0": ycc(r, image.YCbCrSubsampleRatio420), "ycbcr 4:4:0": ycc(r, image.YCbCrSubsampleRatio440),
		"ycbcr 4:1:1":           ycc(r, image.YCbCrSubsampleRatio411),
		"ycbcr 4:2:0 odd sides": ycc(image.Rect(0, 0, w+1, h+1), image.YCbCrSubsampleRatio420),
		"nycbcra":               nycca, "rgba": rgba, "nrgba": nrgba, "rgba64": rgba64, "nrgba64": nrgba64,
		"gray": gray, "gray16": gray16, "paletted": pal, "cmyk": cmyk, "alpha (flattened)": alpha,
	}
}

// TestOrientEveryImageType turns each type, checking every pixel against
// imagingtest.Upright (the EXIF table, written apart).
func TestOrientEveryImageType(t *testing.T) {
	t.Parallel()
	for name, src := range everyType(10, 6) {
		b := src.Bounds()
		for o := 1; o <= 8; o++ {
			got := imaging.Orient(src, o)
			for y := range b.Dy() {
				for x := range b.Dx() {
					ux, uy := imagingtest.Upright(x, y, b.Dx(), b.Dy(), o)
					if !sameColor(got.At(ux, uy), src.At(x, y)) {
						t.Fatalf("%s, orientation %d: pixel (%d,%d) moved to (%d,%d) as %v, want %v",
							name, o, x, y, ux, uy, got.At(ux, uy), src.At(x, y))
					}
				}
			}
		}
	}
}

func sameColor(a, b color.Color) bool {
	ar, ag, ab, aa := a.RGBA()
	br, bg, bb, ba := b.RGBA()
	near := func(p, q uint32) bool { return p>>8 == q>>8 } // the flatten path keeps 8 bits
	return near(ar, br) && near(ag, bg) && near(ab, bb) && near(aa, ba)
}

// decodeBlurHash checks that the hash decodes and returns its components
// and its average colour (the DC term).
func decodeBlurHash(t *testing.T, hash string) (x, y int, avg color.NRGBA) {
	t.Helper()
	if _, err := blurhash.Decode(hash, 32, 32, 1); err != nil {
		t.Fatalf("blurhash %q does not decode: %v", hash, err)
	}
	x, y, err := blurhash.Components(hash)
	if err != nil {
		t.Fatal(err)
	}
	dc, err := base83.Decode(hash[2:6])
	if err != nil {
		t.Fatal(err)
	}
	return x, y, color.NRGBA{uint8(dc >> 16), uint8(dc >> 8), uint8(dc), 255}
}
