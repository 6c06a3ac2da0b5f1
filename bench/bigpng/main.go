// Command bigpng writes a large opaque RGB PNG for bench/decode-memory.sh:
// noise in blocks of a few pixels, so it does not compress to nothing (a
// 7000×7000 one is about 8 MB, under the default TANDEM_UPLOAD_MAX_BYTES)
// yet decodes to the full 4 bytes a pixel, as a photo saved as PNG does.
//
//	go run ./bench/bigpng -w 7000 -h 7000 -o bench/out/big.png
package main

import (
	"bufio"
	"flag"
	"fmt"
	"image"
	"image/png"
	"math/rand/v2"
	"os"
)

func main() {
	w := flag.Int("w", 7000, "width in pixels")
	h := flag.Int("h", 7000, "height in pixels")
	block := flag.Int("block", 5, "side of the blocks of one random colour")
	out := flag.String("o", "big.png", "file to write")
	flag.Parse()
	if err := write(*out, *w, *h, max(*block, 1)); err != nil {
		fmt.Fprintln(os.Stderr, "bigpng:", err)
		os.Exit(1)
	}
}

func write(path string, w, h, block int) error {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	rng := rand.New(rand.NewPCG(1, 2)) // the same file every time
	for y := 0; y < h; y += block {
		for x := 0; x < w; x += block {
			n := rng.Uint32()
			for by := y; by < min(y+block, h); by++ {
				for bx := x; bx < min(x+block, w); bx++ {
					p := img.Pix[img.PixOffset(bx, by):][:4:4]
					p[0], p[1], p[2], p[3] = uint8(n), uint8(n>>8), uint8(n>>16), 0xFF
				}
			}
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := png.Encode(bw, img); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
