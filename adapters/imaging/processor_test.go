package imaging_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image/color"
	"runtime"
	"slices"
	"testing"

	"tandem/adapters/imaging"
	"tandem/adapters/imaging/imagingtest"
	"tandem/core"
	"tandem/modules/images"
)

const tol = 48 // how far JPEG may move a colour of the flat pattern

// Stored sides of the test images: even, and MCU-aligned for JPEG.
const sw, sh = 128, 96

// inputs builds the stored file of the pattern for orientation o in each
// format, the orientation in its EXIF (o 0: no Orientation tag).
var inputs = []struct {
	name   string
	format images.Format
	make   func(w, h, o int) []byte
}{
	{"jpeg big-endian", images.JPEG, func(w, h, o int) []byte { return imagingtest.JPEG(w, h, o, true) }},
	{"jpeg little-endian", images.JPEG, func(w, h, o int) []byte {
		exif := imagingtest.Segment(0xE1, imagingtest.ExifPayload(imagingtest.EXIF(o, false, binary.LittleEndian)))
		return imagingtest.InsertSegments(imagingtest.EncodeJPEG(imagingtest.Pattern(w, h, o, false), 95), exif)
	}},
	{"png eXIf", images.PNG, func(w, h, o int) []byte {
		p := imagingtest.EncodePNG(imagingtest.Pattern(w, h, o, false))
		return imagingtest.PNGWithChunk(p, "eXIf", imagingtest.EXIF(o, true, binary.LittleEndian))
	}},
	{"webp EXIF", images.WEBP, func(w, h, o int) []byte {
		p := imagingtest.EncodeWEBP(imagingtest.Pattern(w, h, o, false))
		return imagingtest.WEBPWithChunk(p, "EXIF", imagingtest.EXIF(o, true, binary.BigEndian))
	}},
	{"webp EXIF with Exif prefix", images.WEBP, func(w, h, o int) []byte {
		p := imagingtest.EncodeWEBP(imagingtest.Pattern(w, h, o, false))
		return imagingtest.WEBPWithChunk(p, "EXIF", imagingtest.ExifPayload(imagingtest.EXIF(o, false, binary.BigEndian)))
	}},
}

func TestOriginalTurnsUpright(t *testing.T) {
	t.Parallel()
	cases := []struct {
		o       int
		swapped bool // the upright image is sh×sw
	}{
		{0, false}, {1, false}, {2, false}, {3, false}, {4, false},
		{5, true}, {6, true}, {7, true}, {8, true},
	}
	p := imaging.New(imaging.Config{})
	for _, in := range inputs {
		for _, tc := range cases {
			t.Run(in.name+"/"+string(rune('0'+tc.o)), func(t *testing.T) {
				t.Parallel()
				got, err := p.Original(t.Context(), bytes.NewReader(in.make(sw, sh, tc.o)), in.format)
				if err != nil {
					t.Fatal(err)
				}
				w, h := sw, sh
				if tc.swapped {
					w, h = sh, sw
				}
				if got.Width != w || got.Height != h {
					t.Fatalf("size %dx%d, want %dx%d", got.Width, got.Height, w, h)
				}
				wantPattern(t, got.Data, w, h)
				wantClean(t, got.Data, got.Format)
			})
		}
	}
}

// TestOriginalTurnsOddSizes covers the JPEG whose chroma cannot be turned
// plane by plane (4:2:0 with odd sides).
func TestOriginalTurnsOddSizes(t *testing.T) {
	t.Parallel()
	p := imaging.New(imaging.Config{})
	for _, o := range []int{2, 3, 6, 7, 8} {
		got, err := p.Original(t.Context(), bytes.NewReader(imagingtest.JPEG(129, 97, o, false)), images.JPEG)
		if err != nil {
			t.Fatal(err)
		}
		w, h := 129, 97
		if o >= 5 {
			w, h = h, w
		}
		if got.Width != w || got.Height != h {
			t.Fatalf("orientation %d: size %dx%d, want %dx%d", o, got.Width, got.Height, w, h)
		}
		wantPattern(t, got.Data, w, h)
	}
}

// wantPattern checks an upright w×h pattern: green top-left, red left,
// blue right.
func wantPattern(t *testing.T, data []byte, w, h int) {
	t.Helper()
	at, size := imagingtest.Pixel(t, data)
	if size.X != w || size.Y != h {
		t.Fatalf("decodes as %v, want %dx%d", size, w, h)
	}
	for _, s := range []struct {
		x, y int
		want color.NRGBA
	}{
		{w / 8, h / 8, imagingtest.Green},
		{w / 8, h * 3 / 4, imagingtest.Red},
		{w * 3 / 8, h / 8, imagingtest.Red},
		{w * 3 / 4, h / 8, imagingtest.Blue},
		{w * 5 / 8, h * 5 / 8, imagingtest.Blue}, // clear of the transparent corner
	} {
		if got := at(s.x, s.y); !imagingtest.Near(got, s.want, tol) {
			t.Errorf("pixel (%d,%d) = %v, want %v", s.x, s.y, got, s.want)
		}
	}
}

func TestOriginalDropsMetadata(t *testing.T) {
	t.Parallel()
	jpegWithEverything := imagingtest.InsertSegments(imagingtest.JPEG(sw, sh, 6, true),
		imagingtest.Segment(0xED, []byte("Photoshop 3.0\x00IPTC")), // APP13
		imagingtest.Segment(0xE0, []byte("JFIF\x00\x01\x02")))
	pngWithText := imagingtest.PNGWithChunk(imagingtest.PNGWithChunk(imagingtest.PNG(sw, sh),
		"tEXt", []byte("Comment\x00"+imagingtest.Comment)), "eXIf", imagingtest.EXIF(1, true, binary.BigEndian))
	cases := []struct {
		name       string
		data       []byte
		format     images.Format
		wantFormat images.Format
		w, h       int // upright
		wantAlpha  bool
	}{
		{"jpeg with exif, gps, xmp, comment, iptc, jfif", jpegWithEverything, images.JPEG, images.JPEG, sh, sw, false},
		{"png with text and exif", pngWithText, images.PNG, images.PNG, sw, sh, false},
		{"opaque webp becomes jpeg", imagingtest.WEBP(sw, sh, false), images.WEBP, images.JPEG, sw, sh, false},
		{"webp with alpha becomes png", imagingtest.WEBP(sw, sh, true), images.WEBP, images.PNG, sw, sh, true},
		{"webp with xmp", imagingtest.WEBPWithChunk(imagingtest.WEBP(sw, sh, false), "XMP ",
			[]byte(imagingtest.XMPNamespace)), images.WEBP, images.JPEG, sw, sh, false},
		{"lossy webp becomes jpeg", imagingtest.LossyWEBP(false), images.WEBP, images.JPEG, 64, 48, false},
		{"lossy webp with alpha becomes png", imagingtest.LossyWEBP(true), images.WEBP, images.PNG, 64, 48, true},
	}
	p := imaging.New(imaging.Config{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := p.Original(t.Context(), bytes.NewReader(tc.data), tc.format)
			if err != nil {
				t.Fatal(err)
			}
			if got.Format != tc.wantFormat {
				t.Fatalf("format %v, want %v", got.Format, tc.wantFormat)
			}
			wantClean(t, got.Data, got.Format)
			wantPattern(t, got.Data, tc.w, tc.h)
			at, _ := imagingtest.Pixel(t, got.Data)
			if a := at(got.Width-1, got.Height-1).A; (a == 0) != tc.wantAlpha {
				t.Errorf("bottom-right alpha %d, want transparent %v", a, tc.wantAlpha)
			}
		})
	}
}

// wantClean fails unless data holds only what an encoder needs: no EXIF,
// no GPS, XMP or comment text, no marker or chunk beyond the image's own.
func wantClean(t *testing.T, data []byte, f images.Format) {
	t.Helper()
	if imagingtest.HasEXIF(data) {
		t.Error("EXIF survived")
	}
	for _, secret := range []string{imagingtest.XMPNamespace, imagingtest.Comment, "52,31.2N", "Tandem", "IPTC", "JFIF"} {
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("%q survived", secret)
		}
	}
	if f == images.JPEG {
		allowed := []byte{0xD8, 0xDB, 0xC0, 0xC4, 0xDA, 0xD9, 0xE2}
		m := imagingtest.Markers(data)
		for _, b := range m {
			if !slices.Contains(allowed, b) {
				t.Errorf("marker %X survived (markers % X)", b, m)
			}
		}
		if m[0] != 0xD8 || m[len(m)-1] != 0xD9 || !bytes.HasSuffix(data, []byte{0xFF, 0xD9}) {
			t.Errorf("markers % X: want SOI first and EOI last, nothing after", m)
		}
		return
	}
	for _, c := range imagingtest.Chunks(data) {
		if !slices.Contains([]string{"IHDR", "PLTE", "tRNS", "IDAT", "IEND", "iCCP"}, c) {
			t.Errorf("chunk %s survived", c)
		}
	}
}

func TestOriginalKeepsColorProfile(t *testing.T) {
	t.Parallel()
	profile := func(n int) []byte { return bytes.Repeat([]byte("P3 profile "), n/11+1)[:n] }
	iccp := append([]byte("P3\x00\x00"), profile(500)...) // name, NUL, method, data
	jpg := imagingtest.JPEG(sw, sh, 6, true)
	cases := []struct {
		name    string
		data    []byte
		format  images.Format
		profile []byte // the profile (JPEG) or iCCP data (PNG) wanted in the output; nil: none
	}{
		{"jpeg, one segment", imagingtest.WithICC(jpg, profile(3144)), images.JPEG, profile(3144)},
		{"jpeg, three segments", imagingtest.WithICC(jpg, profile(150_000)), images.JPEG, profile(150_000)},
		{"jpeg, over the bound", imagingtest.WithICC(jpg, profile(imaging.MaxICC+1)), images.JPEG, nil},
		{"jpeg without", jpg, images.JPEG, nil},
		{"png iCCP", imagingtest.PNGWithChunk(imagingtest.PNG(sw, sh), "iCCP", iccp),
			images.PNG, iccp},
	}
	p := imaging.New(imaging.Config{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := p.Original(t.Context(), bytes.NewReader(tc.data), tc.format)
			if err != nil {
				t.Fatal(err)
			}
			wantClean(t, got.Data, got.Format)
			if got.Format == images.PNG {
				wantPattern(t, got.Data, sw, sh)
				if chunk, want := imaging.ColorProfile(got.Data, images.PNG), imagingtest.Chunk("iCCP", tc.profile); !bytes.Equal(chunk, want) {
					t.Errorf("iCCP chunk %q, want %q", chunk, want)
				}
				return
			}
			wantPattern(t, got.Data, sh, sw)
			if icc := imagingtest.ICC(got.Data); !bytes.Equal(icc, tc.profile) {
				t.Errorf("profile of %d bytes, want %d", len(icc), len(tc.profile))
			}
		})
	}
}

func TestOriginalBlurHash(t *testing.T) {
	t.Parallel()
	solid := func(c color.NRGBA, w, h int) []byte {
		m := imagingtest.Pattern(w, h, 1, false)
		for i := 0; i < len(m.Pix); i += 4 {
			m.Pix[i], m.Pix[i+1], m.Pix[i+2], m.Pix[i+3] = c.R, c.G, c.B, c.A
		}
		return imagingtest.EncodePNG(m)
	}
	cases := []struct {
		name       string
		data       []byte
		format     images.Format
		components [2]int
		average    color.NRGBA
	}{
		{"solid red", solid(imagingtest.Red, 300, 200), images.PNG, [2]int{4, 3}, imagingtest.Red},
		{"solid blue portrait", solid(imagingtest.Blue, 200, 300), images.PNG, [2]int{3, 4}, imagingtest.Blue},
		{"transparent shows white", solid(color.NRGBA{}, 50, 50), images.PNG, [2]int{4, 3}, color.NRGBA{255, 255, 255, 255}},
		// The pattern is 1/16 green, 7/16 red, 8/16 blue: averaged in linear
		// light, as BlurHash does, that is sRGB (176, 71, 188).
		{"pattern turned upright", imagingtest.JPEG(sw, sh, 8, false), images.JPEG, [2]int{3, 4}, color.NRGBA{176, 71, 188, 255}},
	}
	p := imaging.New(imaging.Config{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := p.Original(t.Context(), bytes.NewReader(tc.data), tc.format)
			if err != nil {
				t.Fatal(err)
			}
			x, y, avg := decodeBlurHash(t, got.BlurHash)
			if [2]int{x, y} != tc.components {
				t.Errorf("%d×%d components, want %v", x, y, tc.components)
			}
			if !imagingtest.Near(avg, tc.average, 24) {
				t.Errorf("hash %q averages %v, want about %v", got.BlurHash, avg, tc.average)
			}
		})
	}
}

func TestRefusedFromHeader(t *testing.T) {
	// Not parallel: TotalAlloc counts every goroutine's allocations.
	huge := "images may have at most 50 megapixels"
	cases := []struct {
		name      string
		cfg       imaging.Config
		data      []byte
		format    images.Format
		kind      core.Kind
		code, msg string
	}{
		{"png declaring 200000×200000", imaging.Config{}, imagingtest.PNGDeclaring(200000, 200000), images.PNG,
			core.KindTooLarge, "payload_too_large", huge},
		{"png declaring 2147483647×1", imaging.Config{}, imagingtest.PNGDeclaring(1<<31-1, 1), images.PNG,
			core.KindTooLarge, "payload_too_large", huge},
		{"jpeg declaring 65535×65535", imaging.Config{}, imagingtest.JPEGDeclaring(65535, 65535), images.JPEG,
			core.KindTooLarge, "payload_too_large", huge},
		{"jpeg one pixel over the limit", imaging.Config{MaxPixels: 8000*6000 - 1}, imagingtest.JPEGDeclaring(8000, 6000), images.JPEG,
			core.KindTooLarge, "payload_too_large", "images may have at most 47.999999 megapixels"},
		{"100×100 over a MaxPixels of 5000", imaging.Config{MaxPixels: 5000}, imagingtest.PNG(100, 100), images.PNG,
			core.KindTooLarge, "payload_too_large", "images may have at most 0.005 megapixels"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := imaging.New(tc.cfg)
			calls := map[string]func() error{
				"Original": func() error {
					_, err := p.Original(t.Context(), bytes.NewReader(tc.data), tc.format)
					return err
				},
				"Thumbnail": func() error {
					_, err := p.Thumbnail(t.Context(), bytes.NewReader(tc.data), tc.format, 64)
					return err
				},
			}
			for name, call := range calls {
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				err := call()
				runtime.ReadMemStats(&after)
				wantErr(t, err, tc.kind, tc.code, tc.msg)
				if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
					t.Errorf("%s allocated %d bytes: it decoded", name, grew)
				}
			}
		})
	}
}

func TestRefusedAsUnsupported(t *testing.T) {
	t.Parallel()
	jpg, png, webp := imagingtest.JPEG(sw, sh, 1, false), imagingtest.PNG(sw, sh), imagingtest.WEBP(sw, sh, true)
	cases := []struct {
		name   string
		data   []byte
		format images.Format
	}{
		{"empty", nil, images.JPEG},
		{"garbage as jpeg", []byte("\xFF\xD8\xFFnot really a jpeg at all"), images.JPEG},
		{"garbage as png", []byte("\x89PNG\r\n\x1a\nnot really a png"), images.PNG},
		{"garbage as webp", []byte("RIFF\x10\x00\x00\x00WEBPVP8 garbage"), images.WEBP},
		{"jpeg cut in half", jpg[:len(jpg)/2], images.JPEG},
		{"jpeg without its header", jpg[:100], images.JPEG},
		{"png cut in half", png[:len(png)/2], images.PNG},
		{"webp cut in half", webp[:len(webp)/2], images.WEBP},
		{"png sent as jpeg", png, images.JPEG},
		{"jpeg sent as png", jpg, images.PNG},
		{"jpeg sent as webp", jpg, images.WEBP},
		{"webp sent as png", webp, images.PNG},
		{"unknown format", jpg, images.Format{Ext: "gif", ContentType: "image/gif"}},
		{"png of zero width", imagingtest.PNGDeclaring(0, 10), images.PNG},
		{"jpeg of zero height", imagingtest.JPEGDeclaring(10, 0), images.JPEG},
	}
	p := imaging.New(imaging.Config{})
	const msg = "the image does not decode as JPEG, PNG or WEBP"
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := p.Original(t.Context(), bytes.NewReader(tc.data), tc.format)
			wantErr(t, err, core.KindUnsupported, "unsupported_media_type", msg)
			_, err = p.Thumbnail(t.Context(), bytes.NewReader(tc.data), tc.format, 32)
			wantErr(t, err, core.KindUnsupported, "unsupported_media_type", msg)
		})
	}
}

func TestReaderErrorKept(t *testing.T) {
	t.Parallel()
	limit := core.TooLarge("payload_too_large", "imaging.eachImageMost10Bytes", "each image must be at most 10 bytes")
	_, err := imaging.New(imaging.Config{}).Original(t.Context(), failingReader{limit}, images.JPEG)
	if !errors.Is(err, limit) {
		t.Fatalf("got %v, want the reader's own error", err)
	}
}

type failingReader struct{ err error }

func (r failingReader) Read([]byte) (int, error) { return 0, r.err }

func wantErr(t *testing.T, err error, kind core.Kind, code, msg string) {
	t.Helper()
	var e *core.Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v, want a core.Error", err)
	}
	if e.Kind != kind || e.Code != code || e.Message != msg {
		t.Fatalf("got %v %q %q, want %v %q %q", e.Kind, e.Code, e.Message, kind, code, msg)
	}
}

func TestThumbnail(t *testing.T) {
	t.Parallel()
	jpg, webpAlpha := imagingtest.JPEG(sw, sh, 1, false), imagingtest.WEBP(sw, sh, true)
	cases := []struct {
		name       string
		data       []byte
		format     images.Format
		width      int
		wantFormat images.Format
		w, h       int
		same       bool // the input comes back as it is
	}{
		{"jpeg halved", jpg, images.JPEG, 64, images.JPEG, 64, 48, false},
		{"jpeg to a third, aspect rounded", jpg, images.JPEG, 43, images.JPEG, 43, 32, false},
		{"jpeg to one pixel", jpg, images.JPEG, 1, images.JPEG, 1, 1, false},
		{"jpeg at its width", jpg, images.JPEG, sw, images.JPEG, sw, sh, true},
		{"jpeg never upscaled", jpg, images.JPEG, 4 * sw, images.JPEG, sw, sh, true},
		{"png quartered", imagingtest.PNG(sw, sh), images.PNG, 32, images.PNG, 32, 24, false},
		{"png never upscaled", imagingtest.PNG(sw, sh), images.PNG, 1000, images.PNG, sw, sh, true},
		{"wide png", imagingtest.PNG(400, 40), images.PNG, 100, images.PNG, 100, 10, false},
		{"webp with alpha stays png", webpAlpha, images.WEBP, 64, images.PNG, 64, 48, false},
		{"webp at its width is re-encoded", imagingtest.WEBP(sw, sh, false), images.WEBP, sw, images.JPEG, sw, sh, false},
		{"lossy webp", imagingtest.LossyWEBP(false), images.WEBP, 32, images.JPEG, 32, 24, false},
		{"lossy webp with alpha", imagingtest.LossyWEBP(true), images.WEBP, 32, images.PNG, 32, 24, false},
		{"legacy jpeg with an orientation", imagingtest.JPEG(sw, sh, 6, true), images.JPEG, 48, images.JPEG, 48, 64, false},
	}
	p := imaging.New(imaging.Config{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := p.Thumbnail(t.Context(), bytes.NewReader(tc.data), tc.format, tc.width)
			if err != nil {
				t.Fatal(err)
			}
			if got.Format != tc.wantFormat || got.Width != tc.w || got.Height != tc.h || got.BlurHash != "" {
				t.Fatalf("got %v %dx%d %q, want %v %dx%d and no hash", got.Format, got.Width, got.Height,
					got.BlurHash, tc.wantFormat, tc.w, tc.h)
			}
			if same := bytes.Equal(got.Data, tc.data); same != tc.same {
				t.Fatalf("returned the input as it is: %v, want %v", same, tc.same)
			}
			if tc.w >= 8 {
				wantPattern(t, got.Data, tc.w, tc.h)
			}
			if !tc.same {
				wantClean(t, got.Data, got.Format)
			}
		})
	}
	_, err := p.Thumbnail(t.Context(), bytes.NewReader(jpg), images.JPEG, 0)
	wantErr(t, err, core.KindInvalid, "invalid_request", "a thumbnail is at least 1 pixel wide")
}
