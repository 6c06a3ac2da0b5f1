package imaging_test

import (
	"bytes"
	"image"
	"image/color"
	"math"
	"testing"

	"tandem/adapters/imaging"
	"tandem/adapters/imaging/imagingtest"
	"tandem/modules/images"
)

// TestScaleAveragesAreas compares scale with area averaging done the slow
// way (through At, in float64) on every image type, for reductions that
// do and do not divide the sides.
func TestScaleAveragesAreas(t *testing.T) {
	t.Parallel()
	for name, src := range everyType(23, 17) {
		for _, width := range []int{1, 5, 11, 22} {
			got := imaging.Scale(src, width)
			want := areaAverage(src, got.Bounds().Dx(), got.Bounds().Dy())
			b := got.Bounds()
			if b.Dx() != width || b.Dy() != max(1, int(math.Round(float64(src.Bounds().Dy()*width)/float64(src.Bounds().Dx())))) {
				t.Fatalf("%s to %d: size %v", name, width, b.Size())
			}
			for y := range b.Dy() {
				for x := range b.Dx() {
					if g, w := color.RGBAModel.Convert(got.At(x, y)).(color.RGBA), want[y*b.Dx()+x]; !within(g, w, 1) {
						t.Fatalf("%s to %d: pixel (%d,%d) = %v, want %v", name, width, x, y, g, w)
					}
				}
			}
		}
	}
}

// areaAverage is the definition: each destination pixel is the mean of the
// premultiplied source over its rectangle, partial pixels by their share.
func areaAverage(src image.Image, dw, dh int) []color.RGBA {
	b := src.Bounds()
	sx, sy := float64(b.Dx())/float64(dw), float64(b.Dy())/float64(dh)
	out := make([]color.RGBA, dw*dh)
	for j := range dh {
		for i := range dw {
			var sum [4]float64
			for y := range b.Dy() {
				wy := overlap(float64(y), float64(y+1), float64(j)*sy, float64(j+1)*sy)
				for x := range b.Dx() {
					w := wy * overlap(float64(x), float64(x+1), float64(i)*sx, float64(i+1)*sx)
					if w == 0 {
						continue
					}
					c := color.RGBAModel.Convert(src.At(b.Min.X+x, b.Min.Y+y)).(color.RGBA)
					for k, v := range []uint8{c.R, c.G, c.B, c.A} {
						sum[k] += w * float64(v)
					}
				}
			}
			n := sx * sy
			out[j*dw+i] = color.RGBA{uint8(math.Round(sum[0] / n)), uint8(math.Round(sum[1] / n)),
				uint8(math.Round(sum[2] / n)), uint8(math.Round(sum[3] / n))}
		}
	}
	return out
}

func overlap(a0, a1, b0, b1 float64) float64 { return max(0, min(a1, b1)-max(a0, b0)) }

func within(a, b color.RGBA, tol int) bool {
	return imagingtest.Near(color.NRGBA(a), color.NRGBA(b), tol)
}

// TestThumbnailAverages checks exact values through the whole path, with
// lossless PNGs: a third of a pixel weighs a third, and a transparent pixel
// lends its alpha but not its colour.
func TestThumbnailAverages(t *testing.T) {
	t.Parallel()
	gray := image.NewGray(image.Rect(0, 0, 3, 1))
	copy(gray.Pix, []uint8{0, 90, 180})
	half := image.NewNRGBA(image.Rect(0, 0, 2, 2))
	copy(half.Pix, []uint8{255, 0, 0, 255, 0, 255, 0, 0, 255, 0, 0, 255, 0, 255, 0, 0})
	cases := []struct {
		name  string
		img   image.Image
		width int
		want  []color.NRGBA
	}{
		{"thirds", gray, 2, []color.NRGBA{{30, 30, 30, 255}, {150, 150, 150, 255}}},
		{"transparent green does not tint red", half, 1, []color.NRGBA{{255, 0, 0, 128}}},
	}
	p := imaging.New(imaging.Config{})
	for _, tc := range cases {
		got, err := p.Thumbnail(t.Context(), bytes.NewReader(imagingtest.EncodePNG(tc.img)), images.PNG, tc.width)
		if err != nil {
			t.Fatal(err)
		}
		at, size := imagingtest.Pixel(t, got.Data)
		for x, want := range tc.want {
			if c := at(x, 0); !imagingtest.Near(c, want, 1) || size.Y != 1 {
				t.Errorf("%s: pixel %d = %v (of %v), want %v", tc.name, x, c, size, want)
			}
		}
	}
}
