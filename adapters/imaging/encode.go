package imaging

import (
	"bytes"
	"fmt"
	"image"
	"image/draw"
	"image/jpeg"
	"image/png"
	"io"
	"sync"

	"github.com/buckket/go-blurhash"
	xdraw "golang.org/x/image/draw"

	"tandem/core"
	"tandem/modules/images"
)

const (
	blurSide = 64 // longer side of the copy a BlurHash is drawn from
	pngHdr   = 8 + 12 + 13
	jpegHdr  = 2
)

// encode writes img (drawn from src, decoded from data in format in) as
// what it is stored as. Neither encoder writes any metadata; the colour
// profile is carried over when the output keeps the source's colour space.
func (p *Processor) encode(src, img image.Image, data []byte, in images.Format) (images.Processed, error) {
	f := outFormat(in, img)
	var profile []byte
	if f == in && family(src) == family(img) && family(img) != familyCMYK {
		profile = colorProfile(data, in)
	}
	buf := bytes.NewBuffer(make([]byte, 0, sizeHint(data, src, img)+len(profile)))
	hdr, enc := jpegHdr, func(w io.Writer) error {
		return jpeg.Encode(w, jpegReady(img), &jpeg.Options{Quality: p.quality})
	}
	if f == images.PNG {
		hdr, enc = pngHdr, func(w io.Writer) error { return p.pngs.encode(w, img) }
	}
	out, err := spliceProfile(buf, profile, hdr, enc)
	if err != nil {
		return images.Processed{}, core.Internal(fmt.Errorf("imaging: encode %s: %w", f.Ext, err))
	}
	b := img.Bounds()
	return images.Processed{Data: out, Format: f, Width: b.Dx(), Height: b.Dy()}, nil
}

// outFormat keeps JPEG and PNG; a WEBP becomes JPEG when every pixel is
// opaque (a photo), else PNG (transparency survives).
func outFormat(in images.Format, img image.Image) images.Format {
	if in != images.WEBP {
		return in
	}
	if opaque(img) {
		return images.JPEG
	}
	return images.PNG
}

func opaque(img image.Image) bool {
	o, ok := img.(interface{ Opaque() bool })
	return ok && o.Opaque()
}

// jpegReady hands the JPEG encoder a type it reads without a call per
// pixel. An opaque NRGBA is an RGBA already (nothing to premultiply), so
// only the header changes, not the pixels.
func jpegReady(img image.Image) image.Image {
	switch m := img.(type) {
	case *image.NRGBA:
		if m.Opaque() {
			return &image.RGBA{Pix: m.Pix, Stride: m.Stride, Rect: m.Rect}
		}
	case *image.NYCbCrA:
		if m.Opaque() {
			return &m.YCbCr
		}
	}
	return img
}

type colorFamily uint8

const (
	familyRGB colorFamily = iota
	familyGray
	familyCMYK
)

// family tells which colour space an ICC profile of the image describes.
func family(img image.Image) colorFamily {
	switch img.(type) {
	case *image.Gray, *image.Gray16:
		return familyGray
	case *image.CMYK: // the JPEG encoder writes it as RGB
		return familyCMYK
	}
	return familyRGB
}

// sizeHint guesses the encoded size from the input's, so the output buffer
// rarely grows (each growth copies it and leaves garbage).
func sizeHint(data []byte, src, img image.Image) int {
	s, d := src.Bounds(), img.Bounds()
	return int(int64(len(data)) * int64(d.Dx()) * int64(d.Dy()) / (int64(s.Dx()) * int64(s.Dy())))
}

// blurHash draws the placeholder from a copy at most blurSide pixels on its
// longer side: the hash keeps only 4×3 cosine components, so more pixels buy
// nothing, and ApproxBiLinear (4 samples a pixel) is ample for them.
// Transparent parts count as white, the colour most apps draw behind.
func blurHash(img image.Image) string {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if long := max(w, h); long > blurSide {
		w, h = max(1, w*blurSide/long), max(1, h*blurSide/long)
	}
	small := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(small, small.Bounds(), image.White, image.Point{}, draw.Src)
	xdraw.ApproxBiLinear.Scale(small, small.Bounds(), img, b, xdraw.Over, nil)
	x, y := 4, 3
	if h > w { // the components follow the image's aspect
		x, y = 3, 4
	}
	hash, err := blurhash.Encode(x, y, small)
	if err != nil { // only for components outside 1..9
		return ""
	}
	return hash
}

// pngEncoders reuses the PNG encoder's zlib state and row buffers (about a
// megabyte each time) across encodes. An encoder's buffer keeps the image
// and the writer of its last encode: encode overwrites them with a pixel
// before pooling it, or a pooled buffer would keep a whole decoded image
// (196 MB at 49 megapixels) and its output alive until the pool empties,
// two collections later (on an idle server, minutes).
type pngEncoders struct{ pool sync.Pool }

func (p *pngEncoders) encode(w io.Writer, img image.Image) error {
	slot, _ := p.pool.Get().(*pngSlot)
	if slot == nil {
		slot = new(pngSlot)
	}
	// Default compression, not BestSpeed: a stored file counts against its
	// owner's storage limit and is served many times, but encoded once.
	enc := png.Encoder{CompressionLevel: png.DefaultCompression, BufferPool: slot}
	err := enc.Encode(w, img)
	_ = enc.Encode(io.Discard, onePixel) // the same buffer: it now holds this pixel and io.Discard
	p.pool.Put(slot)
	return err
}

var onePixel = image.NewGray(image.Rect(0, 0, 1, 1))

// pngSlot is an EncoderBufferPool of one buffer, so both encodes of
// pngEncoders.encode use the same one.
type pngSlot struct{ buf *png.EncoderBuffer }

func (s *pngSlot) Get() *png.EncoderBuffer  { return s.buf }
func (s *pngSlot) Put(b *png.EncoderBuffer) { s.buf = b }
