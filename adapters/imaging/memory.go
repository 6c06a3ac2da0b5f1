package imaging

import (
	"math"
	"runtime/metrics"
	"slices"
	"sync"
	"time"
)

// buffers is a free list of the large byte slices the processor allocates
// itself: the turned copy of an image and the bytes of an upload. The next
// decode needing as much takes one instead of allocating it (a 48-megapixel
// photo turned upright is 72 MB). It holds at most max bytes, and reclaim
// empties it when decoding stops, so it never keeps memory from the system
// longer than a burst. Not a sync.Pool: its contents survive collections
// at random and cannot be let go on purpose.
type buffers struct {
	mu   sync.Mutex
	free [][]byte
	held int64 // bytes in free
	max  int64
}

// get returns n zeroed bytes: a free slice of a capacity from n to 2n (no
// small request pins a large slice), else a new one. Zeroed, so that no
// pixel of one upload can ever reach another's output.
func (b *buffers) get(n int) []byte {
	b.mu.Lock()
	best := -1
	for i, s := range b.free {
		if c := cap(s); c >= n && c <= 2*n && (best < 0 || c < cap(b.free[best])) {
			best = i
		}
	}
	if best < 0 {
		b.mu.Unlock()
		return make([]byte, n)
	}
	s := b.free[best]
	b.free = slices.Delete(b.free, best, best+1)
	b.held -= int64(cap(s))
	b.mu.Unlock()
	s = s[:n]
	clear(s)
	return s
}

// put gives s back for reuse; s must not be used afterwards. Past max it is
// left to the collector.
func (b *buffers) put(s []byte) {
	if cap(s) == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.held+int64(cap(s)) > b.max {
		return
	}
	b.free = append(b.free, s[:0])
	b.held += int64(cap(s))
}

// drain lets the collector have everything held.
func (b *buffers) drain() {
	b.mu.Lock()
	defer b.mu.Unlock()
	clear(b.free)
	b.free, b.held = b.free[:0], 0
}

// scratch is what one call borrowed from buffers; release gives it all back
// once nothing the call returns can point into it.
type scratch struct {
	pool *buffers
	lent [][]byte
}

// get is buffers.get, the result's capacity cut to n: nothing appends into
// the rest of a reused slice.
func (s *scratch) get(n int) []byte {
	b := s.pool.get(n)
	s.lent = append(s.lent, b)
	return b[:n:n]
}

func (s *scratch) release() {
	for _, b := range s.lent {
		s.pool.put(b)
	}
	s.lent = nil
}

// Reclaiming. A decode of n pixels leaves about 4n bytes of garbage (RGBA;
// a JPEG's planes are 1.5n, and its upright copy as much again). At the
// runtime's pace (GOGC 200 in tandem serve) that garbage piles up to three
// times the live heap before a collection, and an idle server keeps it, and
// the memory under it, until the collection the runtime forces every two
// minutes. So:
//   - after a decode of at least reclaimPixels whose garbage outweighs what
//     a collection must scan (the bitmaps themselves are not scanned), one
//     collection runs at once, in the background, one at a time: four
//     49-megapixel uploads at a time then peaked at 0.5-0.84 GB instead of
//     0.9-1.6 (BENCHMARKS.md);
//   - once decodes of at least reclaimPixels in all have been followed by
//     reclaimIdle without any, the free buffers go and the runtime gives the
//     freed memory back to the system (debug.FreeOSMemory), at most once
//     every reclaimEvery.
const (
	reclaimPixels = 16_000_000 // 64 MB as RGBA: a 16-megapixel photo or a few smaller ones
	reclaimIdle   = time.Second
	reclaimEvery  = 5 * time.Second
)

// reclaimer counts decodes in progress and the pixels decoded since the
// last reclaim, collects after large decodes and reclaims once decoding
// has stopped.
type reclaimer struct {
	mu         sync.Mutex
	running    int       // decodes in progress
	pixels     int64     // decoded since the last reclaim
	last       time.Time // the last reclaim
	gen        int       // of the armed timer; a fire of an older one does nothing
	timer      interface{ Stop() bool }
	collecting bool

	threshold   int64
	idle, every time.Duration
	now         func() time.Time
	afterFunc   func(time.Duration, func()) interface{ Stop() bool }
	scannable   func() int64 // bytes a collection scans
	spawn       func(func())
	collect     func()
	reclaim     func()
}

func newReclaimer(collect, reclaim func()) *reclaimer {
	return &reclaimer{
		threshold: reclaimPixels, idle: reclaimIdle, every: reclaimEvery,
		now:       time.Now,
		afterFunc: func(d time.Duration, f func()) interface{ Stop() bool } { return time.AfterFunc(d, f) },
		scannable: scannable,
		spawn:     func(f func()) { go f() },
		collect:   collect,
		reclaim:   reclaim,
	}
}

// scannable is what a collection would scan: the heap's objects holding
// pointers, the globals and the stacks.
func scannable() int64 {
	s := []metrics.Sample{{Name: "/gc/scan/total:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return math.MaxInt64 // unknown: never worth a collection of its own
	}
	return int64(min(s[0].Value.Uint64(), math.MaxInt64))
}

// started is called as a decode takes its budget: nothing is reclaimed
// while one runs.
func (r *reclaimer) started() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.running++
	r.disarm()
}

// done is called as a decode of n pixels gives its budget back.
func (r *reclaimer) done(n int64) {
	r.mu.Lock()
	r.running--
	r.pixels += n
	collect := n >= r.threshold && !r.collecting && 4*n >= r.scannable()
	r.collecting = r.collecting || collect
	if r.running == 0 && r.pixels >= r.threshold {
		r.disarm()
		wait := max(r.idle, r.last.Add(r.every).Sub(r.now()))
		gen := r.gen
		r.timer = r.afterFunc(wait, func() { r.fire(gen) })
	}
	r.mu.Unlock()
	if collect {
		r.spawn(func() {
			r.collect()
			r.mu.Lock()
			r.collecting = false
			r.mu.Unlock()
		})
	}
}

func (r *reclaimer) disarm() {
	r.gen++
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
}

func (r *reclaimer) fire(gen int) {
	r.mu.Lock()
	if gen != r.gen || r.running > 0 || r.pixels < r.threshold {
		r.mu.Unlock()
		return
	}
	r.timer, r.pixels, r.last = nil, 0, r.now()
	r.mu.Unlock()
	r.reclaim()
}
