package imaging_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"tandem/adapters/imaging"
	"tandem/adapters/imaging/imagingtest"
	"tandem/modules/images"
)

// photo12MP is a 4000×3000 photo-like JPEG, made once: encoding it takes
// about a second.
var photo12MP = sync.OnceValue(func() []byte { return imagingtest.Photo(4000, 3000) })

// BenchmarkOriginal12MP: one 12 MP JPEG, upright and as a phone held
// upright stores it (orientation 6: the pixels turn).
func BenchmarkOriginal12MP(b *testing.B) {
	upright := photo12MP()
	turned := imagingtest.InsertSegments(upright,
		imagingtest.Segment(0xE1, imagingtest.ExifPayload(imagingtest.EXIF(6, true, binary.BigEndian))))
	for name, data := range map[string][]byte{"upright": upright, "orientation6": turned} {
		b.Run(name, func(b *testing.B) {
			p := imaging.New(imaging.Config{})
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := p.Original(b.Context(), bytes.NewReader(data), images.JPEG); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkThumbnail12MP scales a 12 MP original to 640 pixels wide.
func BenchmarkThumbnail12MP(b *testing.B) {
	data := photo12MP()
	p := imaging.New(imaging.Config{})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Thumbnail(b.Context(), bytes.NewReader(data), images.JPEG, 640); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkConcurrent12MP sends 20 uploads of a 12 MP JPEG at once through
// one Processor and reports the peak heap: the semaphore keeps it near
// GOMAXPROCS decodes' worth, whatever the number of callers.
func BenchmarkConcurrent12MP(b *testing.B) {
	const callers = 20
	data := photo12MP()
	p := imaging.New(imaging.Config{Concurrency: runtime.GOMAXPROCS(0)})
	runtime.GC()
	stop := peakHeap()
	b.ReportAllocs()
	for b.Loop() {
		var wg sync.WaitGroup
		for range callers {
			wg.Go(func() {
				if _, err := p.Original(context.Background(), bytes.NewReader(data), images.JPEG); err != nil {
					b.Error(err)
				}
			})
		}
		wg.Wait()
	}
	b.ReportMetric(float64(stop())/1e6, "peak-MB")
}

// peakHeap samples the bytes of heap objects (live and not yet swept)
// every 2 ms until the returned func is called, which returns the peak.
func peakHeap() (stop func() uint64) {
	const name = "/memory/classes/heap/objects:bytes"
	done, result := make(chan struct{}), make(chan uint64)
	go func() {
		s := []metrics.Sample{{Name: name}}
		var peak uint64
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-done:
				result <- peak
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 { close(done); return <-result }
}
