// Package imaging implements images.Processor with the standard library's
// JPEG and PNG codecs and golang.org/x/image (WEBP decoding, scaling): it
// turns uploads upright, drops their metadata, scales thumbnails and draws
// BlurHash placeholders, decoding nothing whose header declares too many
// pixels, only a few images at once and no more pixels at once than a budget
// (decoded memory grows with pixels, not with files or cores).
package imaging

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"time"

	"golang.org/x/image/webp"
	"golang.org/x/sync/semaphore"

	"tandem/core"
	"tandem/modules/images"
)

var _ images.Processor = (*Processor)(nil)

// Config bounds the work of a Processor; zero fields take their defaults.
type Config struct {
	MaxPixels   int64 // refuse images declaring more pixels (width*height) than this; default 50_000_000
	Concurrency int   // decodes at once (a semaphore); default runtime.GOMAXPROCS(0)
	// DecodePixels bounds the pixels (width*height, from the headers) of all
	// the images being processed at once; an image declaring more than the
	// whole budget is refused like one over MaxPixels. Default 100_000_000:
	// two 48-megapixel photos.
	DecodePixels int64
	// DecodeWait bounds the wait for a decoding slot and for pixel budget;
	// then the answer is 503 busy. Default 5 s.
	DecodeWait  time.Duration
	JPEGQuality int // default 90
}

const (
	defaultMaxPixels    = 50_000_000
	defaultDecodePixels = 100_000_000
	defaultDecodeWait   = 5 * time.Second
	defaultJPEGQuality  = 90
	// busyRetry is the Retry-After of a busy answer: about one decode.
	busyRetry = 2 * time.Second
)

// Processor decodes, cleans and encodes images. It is safe for concurrent
// use: decoding (the memory peak: 1.5 to 4 bytes a pixel, more while turning
// or scaling) waits for one of Concurrency slots and for its pixels out of
// the DecodePixels budget, so many cores cannot mean gigabytes. The large
// buffers it allocates itself are reused while decodes follow each other,
// and once they stop it gives their memory back (see reclaimer).
type Processor struct {
	maxPixels int64 // the smaller of MaxPixels and DecodePixels
	quality   int
	sem       chan struct{}
	pixels    *semaphore.Weighted
	wait      time.Duration
	pngs      pngEncoders
	bufs      *buffers
	reclaimer *reclaimer
}

// New makes a Processor; bootstrap binds it to images.Processor.
func New(cfg Config) *Processor {
	if cfg.MaxPixels <= 0 {
		cfg.MaxPixels = defaultMaxPixels
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = runtime.GOMAXPROCS(0)
	}
	if cfg.JPEGQuality <= 0 || cfg.JPEGQuality > 100 {
		cfg.JPEGQuality = defaultJPEGQuality
	}
	if cfg.DecodePixels <= 0 {
		cfg.DecodePixels = defaultDecodePixels
	}
	if cfg.DecodeWait <= 0 {
		cfg.DecodeWait = defaultDecodeWait
	}
	// At most the budget's pixels as RGBA: what the decodes at once may
	// hold themselves.
	bufs := &buffers{max: 4 * cfg.DecodePixels}
	return &Processor{
		// An image over the whole budget could never be decoded: refuse it
		// from its header, with the limit that applies in its message.
		maxPixels: min(cfg.MaxPixels, cfg.DecodePixels),
		quality:   cfg.JPEGQuality,
		sem:       make(chan struct{}, cfg.Concurrency),
		pixels:    semaphore.NewWeighted(cfg.DecodePixels),
		wait:      cfg.DecodeWait,
		bufs:      bufs,
		reclaimer: newReclaimer(runtime.GC, func() { bufs.drain(); debug.FreeOSMemory() }),
	}
}

// Original decodes the upload, turns it upright by its EXIF orientation and
// encodes it again with no metadata but its colour profile (JPEG ICC, PNG
// iCCP). See images.Processor for the formats.
func (p *Processor) Original(ctx context.Context, r io.Reader, format images.Format) (images.Processed, error) {
	// The upload's bytes and the upright copy are borrowed: nothing returned
	// points into them (the encoder writes a new slice).
	s := &scratch{pool: p.bufs}
	data, cfg, err := p.load(r, format, s.get)
	if err != nil {
		s.release()
		return images.Processed{}, err
	}
	release, err := p.acquire(ctx, pixels(cfg))
	if err != nil {
		s.release()
		return images.Processed{}, err
	}
	defer release()
	defer s.release() // before the budget: its idle moment finds them back
	img, err := decode(data, format)
	if err != nil {
		return images.Processed{}, err
	}
	img = orient(img, orientation(data, format), s.get)
	out, err := p.encode(img, img, data, format)
	if err != nil {
		return images.Processed{}, err
	}
	out.BlurHash = blurHash(img)
	return out, nil
}

// Thumbnail scales an image to width pixels wide (never wider than it is),
// keeping its aspect. A stored original needing no scaling comes back as it
// is: it is already clean, and encoding it again would only lose quality.
// It also applies an EXIF orientation, which a stored original no longer
// has, so a file stored before this processor still gives upright thumbnails.
func (p *Processor) Thumbnail(ctx context.Context, r io.Reader, format images.Format, width int) (images.Processed, error) {
	if width <= 0 {
		return images.Processed{}, core.Invalid("invalid_request", "imaging.thumbnailLeast1PixelWide", "a thumbnail is at least 1 pixel wide")
	}
	data, cfg, err := p.load(r, format, nil) // not borrowed: it may be the answer
	if err != nil {
		return images.Processed{}, err
	}
	o := orientation(data, format)
	if cfg.Width <= width && o == 1 && format != images.WEBP {
		return images.Processed{Data: data, Format: format, Width: cfg.Width, Height: cfg.Height}, nil
	}
	release, err := p.acquire(ctx, pixels(cfg))
	if err != nil {
		return images.Processed{}, err
	}
	defer release()
	s := &scratch{pool: p.bufs}
	defer s.release()
	src, err := decode(data, format)
	if err != nil {
		return images.Processed{}, err
	}
	src = orient(src, o, s.get)
	return p.encode(src, scale(src, width), data, format)
}

// load reads the whole input (its size is the caller's to bound) and checks
// the header alone, so a declared size over the limit allocates nothing.
// An error from r is returned as it is: it may be the caller's own 413.
// alloc, when not nil, provides the buffer of a reader that tells its size.
func (p *Processor) load(r io.Reader, f images.Format, alloc func(n int) []byte) ([]byte, image.Config, error) {
	data, err := readAll(r, alloc)
	if err != nil {
		return nil, image.Config{}, err
	}
	c, ok := codecs[f]
	if !ok {
		return nil, image.Config{}, errUnsupported(fmt.Errorf("imaging: format %q", f.ContentType))
	}
	cfg, err := c.config(bytes.NewReader(data))
	if err != nil {
		return nil, image.Config{}, errUnsupported(err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, image.Config{}, errUnsupported(fmt.Errorf("imaging: %dx%d pixels", cfg.Width, cfg.Height))
	}
	// w*h > max without the product: w and h may be as large as the header says.
	if int64(cfg.Width) > p.maxPixels/int64(cfg.Height) {
		return nil, image.Config{}, p.errTooLarge()
	}
	return data, cfg, nil
}

// maxSizeHint bounds the buffer readAll allocates before reading.
const maxSizeHint = 256 << 20

// readAll is io.ReadAll with one allocation when r tells its size
// (bytes.Reader, io.SectionReader under a multipart file, os.File): growing
// by doubling would leave about twice the file in garbage per upload.
func readAll(r io.Reader, alloc func(n int) []byte) ([]byte, error) {
	var n int64
	switch s := r.(type) {
	case interface{ Len() int }:
		n = int64(s.Len())
	case interface{ Size() int64 }:
		n = s.Size()
	case interface{ Stat() (os.FileInfo, error) }:
		if fi, err := s.Stat(); err == nil {
			n = fi.Size()
		}
	}
	if n <= 0 || n > maxSizeHint {
		return io.ReadAll(r)
	}
	var data []byte
	if alloc != nil {
		data = alloc(int(n) + 1)[:0] // +1: room to see EOF without growing
	} else {
		data = make([]byte, 0, n+1)
	}
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		m, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+m]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// pixels is the weight of an image load accepted: at most p.maxPixels.
func pixels(cfg image.Config) int64 { return int64(cfg.Width) * int64(cfg.Height) }

// acquire takes n pixels of the budget, then a decoding slot (always in this
// order, so two calls never hold one each while waiting for the other). It
// gives up with ctx's own error, or busy after p.wait.
func (p *Processor) acquire(ctx context.Context, n int64) (release func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	wait, cancel := context.WithTimeout(ctx, p.wait)
	defer cancel()
	if err := p.pixels.Acquire(wait, n); err != nil {
		return nil, p.gaveUp(ctx)
	}
	select {
	case p.sem <- struct{}{}:
		p.reclaimer.started()
		return func() { <-p.sem; p.pixels.Release(n); p.reclaimer.done(n) }, nil
	case <-wait.Done():
		p.pixels.Release(n)
		return nil, p.gaveUp(ctx)
	}
}

// gaveUp is the error of a wait that ended: the caller's, else busy.
func (p *Processor) gaveUp(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	e := core.Unavailable("busy", "imaging.tooManyImagesBeingProcessed", "too many images are being processed at once; try again in a moment").
		Wrap(fmt.Errorf("imaging: no decoding budget free within %v", p.wait))
	e.RetryAfter = busyRetry
	return e
}

type codec struct {
	config func(io.Reader) (image.Config, error)
	decode func(io.Reader) (image.Image, error)
}

var codecs = map[images.Format]codec{
	images.JPEG: {jpeg.DecodeConfig, jpeg.Decode},
	images.PNG:  {png.DecodeConfig, png.Decode},
	images.WEBP: {webp.DecodeConfig, webp.Decode},
}

// decode decodes data in the format load accepted it as.
func decode(data []byte, f images.Format) (image.Image, error) {
	img, err := codecs[f].decode(bytes.NewReader(data))
	if err != nil {
		return nil, errUnsupported(err)
	}
	return img, nil
}

func errUnsupported(cause error) error {
	return core.Unsupported("unsupported_media_type", "imaging.imageDoesNotDecodeJPEG", "the image does not decode as JPEG, PNG or WEBP").Wrap(cause)
}

func (p *Processor) errTooLarge() error {
	mp := strconv.FormatFloat(float64(p.maxPixels)/1e6, 'f', -1, 64)
	return core.TooLarge("payload_too_large", "imaging.imagesMayHaveMostMegapixels", "images may have at most %s megapixels", mp)
}
