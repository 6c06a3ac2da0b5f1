// Package imagingtest makes real image files in memory for tests (photos
// with EXIF orientation, GPS, XMP and comments; PNGs and JPEGs that declare
// huge sizes; lossless WEBPs) and takes them apart again for assertions.
// Nothing here is a fixture file: every image is encoded when asked for.
package imagingtest

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand/v2"

	"github.com/HugoSmits86/nativewebp"
)

// The pattern's colours: once upright, the left half is Red, the right half
// Blue, and the top-left corner block Green.
var (
	Red   = color.NRGBA{R: 255, A: 255}
	Blue  = color.NRGBA{B: 255, A: 255}
	Green = color.NRGBA{G: 255, A: 255}
)

// Pattern is the w×h stored image that, turned upright by EXIF orientation
// o (0 and 1 upright), shows the left half Red, the right half Blue and a
// Green block over the top-left quarter of each side. With alpha the
// bottom-right such block is fully transparent.
func Pattern(w, h, o int, alpha bool) *image.NRGBA {
	uw, uh := w, h
	if o >= 5 {
		uw, uh = h, w
	}
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			ux, uy := Upright(x, y, w, h, o)
			m.SetNRGBA(x, y, patternAt(ux, uy, uw, uh, alpha))
		}
	}
	return m
}

func patternAt(x, y, w, h int, alpha bool) color.NRGBA {
	switch {
	case x < w/4 && y < h/4:
		return Green
	case alpha && x >= w-w/4 && y >= h-h/4:
		return color.NRGBA{}
	case x < w/2:
		return Red
	}
	return Blue
}

// Upright is where EXIF orientation o puts the stored pixel (x, y) of a w×h
// image, as the EXIF 2.32 table of tag 0x0112 defines it (the stored 0th
// row and 0th column are shown at: 2 top/right, 3 bottom/right, 4
// bottom/left, 5 left/top, 6 right/top, 7 right/bottom, 8 left/bottom).
func Upright(x, y, w, h, o int) (int, int) {
	switch o {
	case 2:
		return w - 1 - x, y
	case 3:
		return w - 1 - x, h - 1 - y
	case 4:
		return x, h - 1 - y
	case 5:
		return y, x
	case 6:
		return h - 1 - y, x
	case 7:
		return h - 1 - y, w - 1 - x
	case 8:
		return y, w - 1 - x
	}
	return x, y
}

// JPEG is a w×h Pattern photo stored for orientation o (0: no Orientation
// tag), with an APP1 Exif block (big-endian, like most cameras) naming the
// camera. With gps the Exif carries a GPS IFD, and an XMP APP1 with the
// same position and a COM segment follow: all of it must be dropped.
func JPEG(w, h, orientation int, gps bool) []byte {
	segs := [][]byte{Segment(0xE1, ExifPayload(EXIF(orientation, gps, binary.BigEndian)))}
	if gps {
		segs = append(segs, Segment(0xE1, append([]byte(XMPNamespace+"\x00"), xmp...)),
			Segment(0xFE, []byte(Comment)))
	}
	return InsertSegments(EncodeJPEG(Pattern(w, h, orientation, false), 95), segs...)
}

// What the GPS metadata of JPEG says; tests assert none of it survives.
const (
	XMPNamespace = "http://ns.adobe.com/xap/1.0/"
	Comment      = "taken at 52.5200 N 13.4050 E"
)

var xmp = []byte(`<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">` +
	`<rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="52,31.2N" exif:GPSLongitude="13,24.3E"/>` +
	`</rdf:RDF></x:xmpmeta>`)

// Photo is a w×h JPEG that compresses like a photo (gradients and sensor
// noise: 3.6 MB for 4000×3000 at quality 90), with no metadata: the input
// of benchmarks, where the Pattern's flat colours would be unrealistically
// cheap to code.
func Photo(w, h int) []byte {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	rng := rand.New(rand.NewPCG(1, 2))
	for y := range h {
		for x := range w {
			n := rng.IntN(24)
			i := m.PixOffset(x, y)
			m.Pix[i] = uint8(x*200/w + n)
			m.Pix[i+1] = uint8(y*200/h + n)
			m.Pix[i+2] = uint8((x+y)*100/(w+h) + 80 + n)
			m.Pix[i+3] = 255
		}
	}
	return EncodeJPEG(m, 90)
}

// EncodeJPEG encodes img with the standard encoder (which writes no APPn
// segment at all). An opaque NRGBA is passed as RGBA, its fast path.
func EncodeJPEG(img image.Image, quality int) []byte {
	if n, ok := img.(*image.NRGBA); ok && n.Opaque() {
		img = &image.RGBA{Pix: n.Pix, Stride: n.Stride, Rect: n.Rect}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: quality}); err != nil {
		panic("imagingtest: " + err.Error())
	}
	return b.Bytes()
}

// JPEGDeclaring is a small valid JPEG whose SOF0 claims w×h pixels: refused
// from its header, it must never be decoded.
func JPEGDeclaring(w, h uint16) []byte {
	b := EncodeJPEG(Pattern(16, 16, 1, false), 90)
	for _, s := range segments(b) {
		if s.marker == 0xC0 { // precision, height, width
			binary.BigEndian.PutUint16(b[s.at+5:], h)
			binary.BigEndian.PutUint16(b[s.at+7:], w)
		}
	}
	return b
}

// Segment is a JPEG marker segment: FF marker, length, payload.
func Segment(marker byte, payload []byte) []byte {
	if len(payload) > 0xFFFF-2 {
		panic("imagingtest: segment payload too long")
	}
	n := len(payload) + 2
	return append([]byte{0xFF, marker, byte(n >> 8), byte(n)}, payload...)
}

// ExifPayload is an APP1 payload: "Exif\0\0" and the TIFF block.
func ExifPayload(tiff []byte) []byte { return append([]byte("Exif\x00\x00"), tiff...) }

// InsertSegments puts segments right after a JPEG's SOI, where writers put
// their metadata.
func InsertSegments(jpg []byte, segs ...[]byte) []byte {
	out := append([]byte{}, jpg[:2]...)
	for _, s := range segs {
		out = append(out, s...)
	}
	return append(out, jpg[2:]...)
}

// WithICC adds a colour profile to a JPEG as APP2 "ICC_PROFILE" segments
// (numbered, at most 65519 bytes of profile each, as ICC.1 Annex B says).
func WithICC(jpg, profile []byte) []byte {
	const per = 0xFFFF - 2 - 14
	count := (len(profile) + per - 1) / per
	var segs [][]byte
	for i := range count {
		part := profile[i*per : min(len(profile), (i+1)*per)]
		head := append([]byte("ICC_PROFILE\x00"), byte(i+1), byte(count))
		segs = append(segs, Segment(0xE2, append(head, part...)))
	}
	return InsertSegments(jpg, segs...)
}

// PNG is a w×h upright Pattern as an RGBA PNG.
func PNG(w, h int) []byte { return EncodePNG(Pattern(w, h, 1, false)) }

// EncodePNG encodes img with the standard encoder.
func EncodePNG(img image.Image) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic("imagingtest: " + err.Error())
	}
	return b.Bytes()
}

// PNGDeclaring is a PNG whose IHDR (with a valid CRC) declares w×h RGBA
// pixels, followed by a few bytes of image data: decoding it would allocate
// w×h×4 bytes, so it must be refused from the header alone.
func PNGDeclaring(w, h uint32) []byte {
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr, w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6 // 8 bits, RGBA
	b := []byte("\x89PNG\r\n\x1a\n")
	b = append(b, Chunk("IHDR", ihdr)...)
	b = append(b, Chunk("IDAT", []byte{0x78, 0x9c, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01})...)
	return append(b, Chunk("IEND", nil)...)
}

// Chunk is a PNG chunk: length, type, data and CRC.
func Chunk(typ string, data []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	b = append(append(b, typ...), data...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[4:]))
}

// PNGWithChunk inserts a chunk right after IHDR (where eXIf and iCCP go).
func PNGWithChunk(p []byte, typ string, data []byte) []byte {
	const at = 8 + 12 + 13
	out := append([]byte{}, p[:at]...)
	out = append(out, Chunk(typ, data)...)
	return append(out, p[at:]...)
}

// WEBP is a w×h upright Pattern as a lossless (VP8L) WEBP, encoded by
// nativewebp; with alpha its bottom-right block is transparent.
func WEBP(w, h int, alpha bool) []byte { return EncodeWEBP(Pattern(w, h, 1, alpha)) }

// EncodeWEBP encodes img as a lossless WEBP.
func EncodeWEBP(img image.Image) []byte {
	var b bytes.Buffer
	if err := nativewebp.Encode(&b, img, nil); err != nil {
		panic("imagingtest: " + err.Error())
	}
	return b.Bytes()
}

// WEBPWithChunk turns a simple lossless WEBP (as WEBP makes) into the
// extended format, whose VP8X header flags the added chunk: ICCP goes
// before the image data, EXIF and "XMP " after it.
func WEBPWithChunk(w []byte, fourcc string, data []byte) []byte {
	bits := binary.LittleEndian.Uint32(w[21:]) // after RIFF, size, WEBP, VP8L, size, 0x2f
	width, height := bits&0x3FFF, (bits>>14)&0x3FFF
	vp8x := make([]byte, 10)
	vp8x[0] = map[string]byte{"ICCP": 0x20, "EXIF": 0x08, "XMP ": 0x04}[fourcc]
	if bits>>28&1 == 1 {
		vp8x[0] |= 0x10
	}
	vp8x[4], vp8x[5], vp8x[6] = byte(width), byte(width>>8), byte(width>>16)
	vp8x[7], vp8x[8], vp8x[9] = byte(height), byte(height>>8), byte(height>>16)
	extra := riffChunk(fourcc, data)
	body := append([]byte("WEBP"), riffChunk("VP8X", vp8x)...)
	if fourcc == "ICCP" {
		body = append(append(body, extra...), w[12:]...)
	} else {
		body = append(append(body, w[12:]...), extra...)
	}
	return append(binary.LittleEndian.AppendUint32([]byte("RIFF"), uint32(len(body))), body...)
}

func riffChunk(fourcc string, data []byte) []byte {
	b := binary.LittleEndian.AppendUint32([]byte(fourcc), uint32(len(data)))
	b = append(b, data...)
	if len(data)%2 == 1 {
		b = append(b, 0)
	}
	return b
}
