package imagingtest

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"

	"golang.org/x/image/webp"
)

type segment struct {
	marker  byte
	at      int // index of the 0xFF
	payload []byte
}

// segments lists every marker of a JPEG up to EOI, those after each scan's
// entropy-coded data included (a progressive file has many scans).
func segments(b []byte) []segment {
	if len(b) < 2 || b[0] != 0xFF || b[1] != 0xD8 {
		return nil
	}
	out := []segment{{marker: 0xD8}}
	for i := 2; i+1 < len(b); {
		if b[i] != 0xFF {
			return out // not a marker: the file is broken here
		}
		m := b[i+1]
		switch {
		case m == 0xFF:
			i++
			continue
		case m == 0xD9:
			return append(out, segment{marker: m, at: i})
		case m >= 0xD0 && m <= 0xD7 || m == 0x01:
			out = append(out, segment{marker: m, at: i})
			i += 2
			continue
		}
		if i+4 > len(b) {
			return out
		}
		n := int(binary.BigEndian.Uint16(b[i+2:]))
		if n < 2 || i+2+n > len(b) {
			return out
		}
		out = append(out, segment{marker: m, at: i, payload: b[i+4 : i+2+n]})
		i += 2 + n
		if m == 0xDA {
			i = afterScan(b, i)
		}
	}
	return out
}

// afterScan skips entropy-coded data: FF 00 is a stuffed byte and FF D0-D7
// a restart marker, any other FF xx ends the scan.
func afterScan(b []byte, i int) int {
	for ; i+1 < len(b); i++ {
		if b[i] == 0xFF && b[i+1] != 0 && (b[i+1] < 0xD0 || b[i+1] > 0xD7) {
			return i
		}
	}
	return len(b)
}

// Markers lists the second byte of each marker of a JPEG, SOI (D8) to
// EOI (D9): a clean file has only D8 DB C0 C4 DA D9 (and E2 for a kept
// colour profile).
func Markers(jpg []byte) []byte {
	var out []byte
	for _, s := range segments(jpg) {
		out = append(out, s.marker)
	}
	return out
}

// HasEXIF tells whether a JPEG, PNG or WEBP file carries EXIF: an APP1
// "Exif" segment, an eXIf chunk, an EXIF RIFF chunk, or the Exif header
// anywhere in the bytes.
func HasEXIF(data []byte) bool {
	for _, s := range segments(data) {
		if s.marker == 0xE1 && bytes.HasPrefix(s.payload, []byte("Exif\x00\x00")) {
			return true
		}
	}
	for _, name := range Chunks(data) {
		if name == "eXIf" || name == "EXIF" {
			return true
		}
	}
	return bytes.Contains(data, []byte("Exif\x00\x00"))
}

// Chunks lists the chunk types of a PNG or the chunk FourCCs of a WEBP.
func Chunks(data []byte) []string {
	var out []string
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		for i := 8; i+12 <= len(data); {
			n := int(binary.BigEndian.Uint32(data[i:]))
			if n < 0 || n > len(data)-i-12 {
				break
			}
			out = append(out, string(data[i+4:i+8]))
			i += 12 + n
		}
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		for i := 12; i+8 <= len(data); {
			n := int(binary.LittleEndian.Uint32(data[i+4:]))
			if n < 0 || n > len(data)-i-8 {
				break
			}
			out = append(out, string(data[i:i+4]))
			i += 8 + n + n%2
		}
	}
	return out
}

// ICC is the colour profile a JPEG's APP2 segments carry, joined in order;
// nil when there is none.
func ICC(jpg []byte) []byte {
	var out []byte
	for _, s := range segments(jpg) {
		if s.marker == 0xE2 && bytes.HasPrefix(s.payload, []byte("ICC_PROFILE\x00")) && len(s.payload) >= 14 {
			out = append(out, s.payload[14:]...)
		}
	}
	return out
}

// Decode decodes a JPEG, PNG or WEBP file, failing the test if it does not.
func Decode(tb testing.TB, data []byte) image.Image {
	tb.Helper()
	var (
		img image.Image
		err error
	)
	r := bytes.NewReader(data)
	switch {
	case bytes.HasPrefix(data, []byte{0xFF, 0xD8}):
		img, err = jpeg.Decode(r)
	case bytes.HasPrefix(data, []byte("\x89PNG")):
		img, err = png.Decode(r)
	default:
		img, err = webp.Decode(r)
	}
	if err != nil {
		tb.Fatalf("imagingtest: decode: %v", err)
	}
	return img
}

// Pixel decodes data and returns a reader of its non-premultiplied colours.
func Pixel(tb testing.TB, data []byte) (at func(x, y int) color.NRGBA, size image.Point) {
	tb.Helper()
	img := Decode(tb, data)
	b := img.Bounds()
	return func(x, y int) color.NRGBA {
		return color.NRGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
	}, b.Size()
}

// Near tells whether every channel of got is within tol of want (JPEG moves
// colours a little).
func Near(got, want color.NRGBA, tol int) bool {
	d := func(a, b uint8) bool { return int(a)-int(b) <= tol && int(b)-int(a) <= tol }
	return d(got.R, want.R) && d(got.G, want.G) && d(got.B, want.B) && d(got.A, want.A)
}
