package imaging

import (
	"image"
	"image/color"
)

// scale shrinks img to width pixels wide, keeping its aspect, and never
// enlarges it.
//
// It averages areas (each source pixel counts by how much of the
// destination pixel it covers), reading the source one row at a time. That
// is the standard anti-aliased reduction, and it needs no more memory than
// the result: x/image/draw's CatmullRom keeps a float64 RGBA buffer of
// destination width × source height (123 MB for 1280 px from 12 MP,
// 236 MB from 50 MP), and its ApproxBiLinear skips most source pixels when
// shrinking by 6 or more, which aliases.
func scale(img image.Image, width int) image.Image {
	b := img.Bounds()
	if width >= b.Dx() {
		return img
	}
	h := max(1, int((int64(b.Dy())*int64(width)+int64(b.Dx())/2)/int64(b.Dx())))
	return shrink(img, width, h)
}

// span is what one source column (or row) adds to the destination: w0 of
// it to index j, w1 to j+1. Units: a source pixel is as long as the
// destination side, a destination pixel as long as the source side, so
// every weight is an integer and a destination pixel's weights add up to
// the source side.
type span struct {
	j      int
	w0, w1 float64
}

func spans(src, dst int) []span {
	out := make([]span, src)
	for x := range out {
		lo, hi := int64(x)*int64(dst), int64(x+1)*int64(dst)
		j := lo / int64(src)
		end := (j + 1) * int64(src)
		if hi <= end {
			out[x] = span{int(j), float64(dst), 0}
		} else {
			out[x] = span{int(j), float64(end - lo), float64(hi - end)}
		}
	}
	return out
}

// shrink area-averages img into a dw×dh RGBA (premultiplied, so
// transparent pixels lend no colour), dw and dh at most img's sides.
func shrink(img image.Image, dw, dh int) *image.RGBA {
	b := img.Bounds()
	sw, sh := b.Dx(), b.Dy()
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	cols, rows := spans(sw, dw), spans(sh, dh)
	line := make([]uint8, 4*sw)
	hsum := make([]float64, 4*dw)
	cur, next := make([]float64, 4*dw), make([]float64, 4*dw) // rows j and j+1
	norm := 1 / (float64(sw) * float64(sh))
	for y, r := range rows {
		readRow(line, img, b.Min.Y+y)
		clear(hsum)
		for x, c := range cols {
			p := line[4*x : 4*x+4 : 4*x+4]
			q := hsum[4*c.j : 4*c.j+4 : 4*c.j+4]
			for k := range 4 {
				q[k] += float64(p[k]) * c.w0
			}
			if c.w1 > 0 {
				q = hsum[4*c.j+4 : 4*c.j+8 : 4*c.j+8]
				for k := range 4 {
					q[k] += float64(p[k]) * c.w1
				}
			}
		}
		for i, v := range hsum {
			cur[i] += v * r.w0
			next[i] += v * r.w1
		}
		if r.w1 > 0 || int64(y+1)*int64(dh) == int64(r.j+1)*int64(sh) { // row r.j is complete
			out := dst.Pix[r.j*dst.Stride : r.j*dst.Stride+4*dw]
			for i, v := range cur {
				out[i] = uint8(v*norm + 0.5)
			}
			cur, next = next, cur
			clear(next)
		}
	}
	return dst
}

// readRow fills line with row y of img as premultiplied RGBA bytes,
// without a call per pixel for the types the decoders return.
func readRow(line []uint8, img image.Image, y int) {
	b := img.Bounds()
	switch m := img.(type) {
	case *image.RGBA:
		copy(line, m.Pix[m.PixOffset(b.Min.X, y):])
	case *image.NRGBA:
		row := m.Pix[m.PixOffset(b.Min.X, y):]
		for i := 0; i < len(line); i += 4 {
			a := uint32(row[i+3])
			line[i], line[i+1], line[i+2], line[i+3] =
				premul(row[i], a), premul(row[i+1], a), premul(row[i+2], a), uint8(a)
		}
	case *image.YCbCr:
		readYCbCr(line, m, nil, 0, y)
	case *image.NYCbCrA:
		readYCbCr(line, &m.YCbCr, m.A, m.AOffset(b.Min.X, y), y)
	case *image.Gray:
		row := m.Pix[m.PixOffset(b.Min.X, y):]
		for i := 0; i < len(line); i += 4 {
			v := row[i/4]
			line[i], line[i+1], line[i+2], line[i+3] = v, v, v, 0xFF
		}
	default:
		for i, x := 0, b.Min.X; i < len(line); i, x = i+4, x+1 {
			r, g, bl, a := m.At(x, y).RGBA()
			line[i], line[i+1], line[i+2], line[i+3] = uint8(r>>8), uint8(g>>8), uint8(bl>>8), uint8(a>>8)
		}
	}
}

// readYCbCr converts row y of m, with alpha from alpha[ai:] when not nil.
func readYCbCr(line []uint8, m *image.YCbCr, alpha []uint8, ai, y int) {
	for i, x := 0, m.Rect.Min.X; i < len(line); i, x = i+4, x+1 {
		ci := m.COffset(x, y)
		r, g, b := color.YCbCrToRGB(m.Y[m.YOffset(x, y)], m.Cb[ci], m.Cr[ci])
		a := uint32(0xFF)
		if alpha != nil {
			a = uint32(alpha[ai+i/4])
		}
		line[i], line[i+1], line[i+2], line[i+3] =
			premul(r, a), premul(g, a), premul(b, a), uint8(a)
	}
}

func premul(c uint8, a uint32) uint8 { return uint8((uint32(c)*a + 127) / 255) }
