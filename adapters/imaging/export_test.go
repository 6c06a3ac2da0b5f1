package imaging

import (
	"context"
	"image"
)

// Exported for the black-box tests in package imaging_test.
var (
	Orientation     = orientation
	TIFFOrientation = tiffOrientation
	ColorProfile    = colorProfile
	MaxICC          = maxICC
)

// Orient turns img upright by EXIF orientation o.
func Orient(img image.Image, o int) image.Image { return orient(img, o, nil) }

// Hold takes one of p's decoding slots and pixels of its budget as a decode
// in progress would, so a test can see the next call wait for them.
func (p *Processor) Hold(ctx context.Context, pixels int64) (release func(), err error) {
	return p.acquire(ctx, pixels)
}

// Scale shrinks img to width pixels wide.
func Scale(img image.Image, width int) image.Image { return scale(img, width) }
