package imaging

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"runtime"
	"testing"
	"time"
	"weak"

	"tandem/adapters/imaging/imagingtest"
	"tandem/modules/images"
)

func TestBuffers(t *testing.T) {
	t.Parallel()
	same := func(a, b []byte) bool { return cap(a) > 0 && cap(b) > 0 && &a[:1][0] == &b[:1][0] }
	t.Run("a slice given back is taken again, zeroed", func(t *testing.T) {
		t.Parallel()
		b := &buffers{max: 1 << 20}
		s := b.get(1000)
		for i := range s {
			s[i] = 0xAB
		}
		b.put(s)
		r := b.get(900)
		if !same(r, s) || len(r) != 900 {
			t.Fatalf("got a new slice of %d, want the one given back", len(r))
		}
		if i := bytes.IndexFunc(r, func(c rune) bool { return c != 0 }); i >= 0 {
			t.Fatalf("byte %d is %#x: a previous image's byte", i, r[i])
		}
		if b.held != 0 {
			t.Fatalf("held %d after taking it back", b.held)
		}
	})
	t.Run("the smallest that fits; none more than twice the size asked", func(t *testing.T) {
		t.Parallel()
		b := &buffers{max: 1 << 20}
		small, mid, big := make([]byte, 100), make([]byte, 300), make([]byte, 1000)
		b.put(big)
		b.put(small)
		b.put(mid)
		if r := b.get(250); !same(r, mid) {
			t.Fatalf("250 bytes: cap %d, want the 300", cap(r))
		}
		if r := b.get(400); same(r, big) || cap(r) != 400 {
			t.Fatalf("400 bytes: cap %d, want a new slice, not the 1000", cap(r))
		}
		if r := b.get(500); !same(r, big) {
			t.Fatalf("500 bytes: cap %d, want the 1000", cap(r))
		}
	})
	t.Run("past max a slice is left to the collector; drain lets go of all", func(t *testing.T) {
		t.Parallel()
		b := &buffers{max: 1000}
		b.put(make([]byte, 600))
		b.put(make([]byte, 600))
		if len(b.free) != 1 || b.held != 600 {
			t.Fatalf("held %d in %d slices, want 600 in 1", b.held, len(b.free))
		}
		b.drain()
		if len(b.free) != 0 || b.held != 0 {
			t.Fatalf("after drain: %d in %d slices", b.held, len(b.free))
		}
	})
	t.Run("scratch lends slices of exactly the size asked and gives them all back", func(t *testing.T) {
		t.Parallel()
		b := &buffers{max: 1 << 20}
		s := &scratch{pool: b}
		x, y := s.get(100), s.get(70)
		if len(x) != 100 || cap(x) != 100 || len(y) != 70 || cap(y) != 70 {
			t.Fatalf("len/cap %d/%d and %d/%d", len(x), cap(x), len(y), cap(y))
		}
		s.release()
		if b.held != 170 || len(s.lent) != 0 {
			t.Fatalf("held %d, still lent %d", b.held, len(s.lent))
		}
	})
}

// fakeTimers runs afterFunc's functions when the test says so.
type fakeTimers struct {
	now   time.Time
	armed []*fakeTimer
}

type fakeTimer struct {
	after   time.Duration
	f       func()
	stopped bool
}

func (t *fakeTimer) Stop() bool { was := !t.stopped; t.stopped = true; return was }

// fire runs the function as the time's end would: the timer is spent.
func (t *fakeTimer) fire() { t.stopped = true; t.f() }

func (ft *fakeTimers) afterFunc(d time.Duration, f func()) interface{ Stop() bool } {
	t := &fakeTimer{after: d, f: f}
	ft.armed = append(ft.armed, t)
	return t
}

// pending is the timer armed last and not stopped, or nil.
func (ft *fakeTimers) pending() *fakeTimer {
	if n := len(ft.armed); n > 0 && !ft.armed[n-1].stopped {
		return ft.armed[n-1]
	}
	return nil
}

func TestReclaimer(t *testing.T) {
	t.Parallel()
	const big, small = 20_000_000, 5_000_000
	setup := func() (*reclaimer, *fakeTimers, *int) {
		ft := &fakeTimers{now: time.Unix(1_000_000, 0)}
		n := new(int)
		r := newReclaimer(func() {}, func() { *n++ })
		r.now = func() time.Time { return ft.now }
		r.afterFunc = ft.afterFunc
		r.scannable = func() int64 { return 1 << 40 } // no collections here
		return r, ft, n
	}
	t.Run("small decodes arm nothing until their pixels add up", func(t *testing.T) {
		t.Parallel()
		r, ft, n := setup()
		for range 3 {
			r.started()
			r.done(small)
		}
		if ft.pending() != nil {
			t.Fatalf("armed after %d pixels, under the threshold of %d", 3*small, reclaimPixels)
		}
		r.started()
		r.done(small)
		p := ft.pending()
		if p == nil || p.after != reclaimIdle {
			t.Fatalf("after %d pixels: %+v, want armed for %v", 4*small, p, reclaimIdle)
		}
		p.fire()
		if *n != 1 {
			t.Fatalf("reclaimed %d times, want 1", *n)
		}
	})
	t.Run("nothing while a decode runs; the last one to finish arms it", func(t *testing.T) {
		t.Parallel()
		r, ft, n := setup()
		r.started()
		r.started()
		r.done(big)
		if ft.pending() != nil {
			t.Fatal("armed while a decode still runs")
		}
		r.done(big)
		if ft.pending() == nil {
			t.Fatal("not armed once both finished")
		}
		ft.pending().fire()
		if *n != 1 {
			t.Fatalf("reclaimed %d times, want 1", *n)
		}
	})
	t.Run("a decode starting in the idle wait disarms it, and an old timer firing late does nothing", func(t *testing.T) {
		t.Parallel()
		r, ft, n := setup()
		r.started()
		r.done(big)
		first := ft.pending()
		r.started()
		if !first.stopped {
			t.Fatal("the idle wait was not stopped by a new decode")
		}
		first.f() // fired as Stop was called
		if *n != 0 {
			t.Fatal("reclaimed while a decode runs")
		}
		r.done(small)
		second := ft.pending()
		if second == nil || second == first {
			t.Fatal("not armed again when the decode finished")
		}
		first.f()
		if *n != 0 {
			t.Fatal("the stale timer reclaimed")
		}
		second.fire()
		if *n != 1 {
			t.Fatalf("reclaimed %d times, want 1", *n)
		}
	})
	t.Run("at most once per interval: the next waits for the rest of it", func(t *testing.T) {
		t.Parallel()
		r, ft, n := setup()
		r.started()
		r.done(big)
		ft.pending().fire()
		ft.now = ft.now.Add(2 * time.Second)
		r.started()
		r.done(big)
		p := ft.pending()
		if want := reclaimEvery - 2*time.Second; p == nil || p.after != want {
			t.Fatalf("armed %+v, want for %v (the rest of the interval)", p, want)
		}
		p.fire()
		if *n != 2 {
			t.Fatalf("reclaimed %d times, want 2", *n)
		}
		ft.now = ft.now.Add(time.Hour)
		r.started()
		r.done(small)
		if ft.pending() != nil {
			t.Fatal("the pixels reclaimed were counted again")
		}
	})
}

func TestCollectionAfterALargeDecode(t *testing.T) {
	t.Parallel()
	const big = 20_000_000
	cases := []struct {
		name      string
		decodes   []int64 // done one after the other
		scannable int64
		runEach   bool // the collection ends before the next decode ends
		want      int
	}{
		{"a large decode whose garbage outweighs the scan", []int64{big}, 50 << 20, true, 1},
		{"each large decode, once the last collection ended", []int64{big, big, big}, 50 << 20, true, 3},
		{"not while one runs", []int64{big, big, big}, 50 << 20, false, 1},
		{"not after a small decode", []int64{reclaimPixels - 1, 1000}, 0, true, 0},
		{"not when the scan outweighs the garbage", []int64{big}, 4*big + 1, true, 0},
	}
	for _, tc := range cases {
		r := newReclaimer(nil, func() {})
		r.afterFunc = (&fakeTimers{}).afterFunc
		r.scannable = func() int64 { return tc.scannable }
		got, pending := 0, []func(){}
		r.collect = func() { got++ }
		r.spawn = func(f func()) { pending = append(pending, f) }
		for _, n := range tc.decodes {
			r.started()
			r.done(n)
			if tc.runEach {
				for _, f := range pending {
					f()
				}
				pending = nil
			}
		}
		for _, f := range pending {
			f()
		}
		if got != tc.want {
			t.Errorf("%s: %d collections, want %d", tc.name, got, tc.want)
		}
	}
}

// TestEncodingKeepsNoImageAlive: the pooled PNG encoder buffer forgets the
// image and the writer of its last encode, so neither outlives the call.
func TestEncodingKeepsNoImageAlive(t *testing.T) {
	t.Parallel()
	p := New(Config{})
	for _, f := range []images.Format{images.PNG, images.JPEG} {
		img, out := encodeOnce(t, p, f)
		runtime.GC()
		if img.Value() != nil {
			t.Errorf("%s: the encoded image is still reachable after a collection", f.Ext)
		}
		if out.Value() != nil {
			t.Errorf("%s: the encoder's output buffer is still reachable after a collection", f.Ext)
		}
	}
}

//go:noinline
func encodeOnce(t *testing.T, p *Processor, f images.Format) (weak.Pointer[image.NRGBA], weak.Pointer[byte]) {
	img := image.NewNRGBA(image.Rect(0, 0, 64, 48))
	for i := range img.Pix {
		img.Pix[i] = uint8(i)
	}
	out, err := p.encode(img, img, nil, f)
	if err != nil || len(out.Data) == 0 {
		t.Fatalf("%s: %d bytes, %v", f.Ext, len(out.Data), err)
	}
	return weak.Make(img), weak.Make(&out.Data[0])
}

// TestReusedBuffersChangeNoOutput: an upload turned upright into the
// buffers of the one before gives the bytes a fresh processor gives.
func TestReusedBuffersChangeNoOutput(t *testing.T) {
	t.Parallel()
	const w, h = 128, 96
	inputs := []struct {
		name   string
		format images.Format
		data   []byte
	}{
		{"jpeg 6", images.JPEG, imagingtest.JPEG(w, h, 6, false)},
		{"jpeg 8", images.JPEG, imagingtest.JPEG(w, h, 8, true)},
		{"png 6", images.PNG, pngTurned(w, h, 6, color.NRGBA{200, 10, 10, 255})},
		{"png 8", images.PNG, pngTurned(w, h, 8, color.NRGBA{10, 10, 200, 128})},
	}
	reused := New(Config{})
	for _, in := range inputs {
		got, err := reused.Original(t.Context(), bytes.NewReader(in.data), in.format)
		if err != nil {
			t.Fatalf("%s: %v", in.name, err)
		}
		if reused.bufs.held == 0 {
			t.Fatalf("%s: nothing given back to reuse", in.name)
		}
		want, err := New(Config{}).Original(t.Context(), bytes.NewReader(in.data), in.format)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Data, want.Data) || got.BlurHash != want.BlurHash {
			t.Errorf("%s: the output differs from a fresh processor's", in.name)
		}
	}
}

// pngTurned is a PNG of the pattern for orientation o in c, its EXIF in eXIf.
func pngTurned(w, h, o int, c color.NRGBA) []byte {
	m := image.NewNRGBA(image.Rect(0, 0, h, w)) // stored on its side
	for y := range w {
		for x := range h {
			m.SetNRGBA(x, y, color.NRGBA{c.R, uint8(x), uint8(y), c.A})
		}
	}
	return imagingtest.PNGWithChunk(imagingtest.EncodePNG(m), "eXIf", imagingtest.EXIF(o, false, binary.LittleEndian))
}
