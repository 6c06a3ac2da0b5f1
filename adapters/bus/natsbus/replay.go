package natsbus

import (
	"container/heap"
	"sync"
	"time"
)

// MaxAge and MaxSkew bound when a message may have been sent, by the
// receiver's clock: at most MaxAge ago (a captured message is good for no
// longer) and at most MaxSkew ahead (two machines' clocks).
const (
	MaxAge  = time.Minute
	MaxSkew = 5 * time.Second
)

// DefaultSeenCap is how many message ids a subscription remembers at most
// (Config.SeenCap): about 1,000 messages a second on one topic for the
// whole window (MaxAge + MaxSkew), about 4 MiB when full.
const DefaultSeenCap = 1 << 16

// Why a message was dropped unheard (Config.Rejected).
const (
	RejectSignature = "signature" // no MAC, a wrong one, or a frame of another format (an older version)
	RejectStale     = "stale"     // sent more than MaxAge ago, more than MaxSkew ahead, or not after what its subscription had to forget
	RejectReplayed  = "replayed"  // its id was heard already
)

// idSize is the length of the random id every message carries.
const idSize = 16

// stamp is what a message says of itself, under its MAC: when it was sent
// (the publisher's clock, unix milliseconds) and its random id.
type stamp struct {
	sent int64
	id   [idSize]byte
}

// seenIDs is what one subscription remembers against replays: the ids of
// the messages it let through, each until it is too old to pass anyway.
// Full (cap ids), it forgets the one sent first to make room, and from then
// on refuses whatever was sent no later than that (floor); a message sent
// no later than every id it holds is refused instead. So a flood of genuine
// messages shortens the acceptance window (one delayed beyond it is dropped
// as stale), but never grows memory nor lets a replay through (forgetting the
// oldest without a floor would; refusing every new message at the cap
// would drop fresh live events and revocations). Nobody without the secret
// can make a message with a new id: only the deployment's traffic fills it.
type seenIDs struct {
	mu    sync.Mutex // the subscription's goroutine, and Remembered
	ids   map[[idSize]byte]struct{}
	order byAge // the same ids, the first sent on top
	floor int64 // unix ms: a message sent at or before it is refused
	cap   int
}

func newSeenIDs(capacity int) *seenIDs {
	if capacity <= 0 {
		capacity = DefaultSeenCap
	}
	return &seenIDs{ids: map[[idSize]byte]struct{}{}, floor: -1 << 63, cap: capacity}
}

// admit records a correctly signed message's stamp, at now (unix ms), and
// says why it must be dropped: "" for a message to deliver.
func (s *seenIDs) admit(now int64, st stamp) string {
	oldest := now - MaxAge.Milliseconds()
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.order) > 0 && s.order[0].sent < oldest {
		s.forget() // it would be refused as stale now: no need to remember it
	}
	if st.sent < oldest || st.sent > now+MaxSkew.Milliseconds() || st.sent <= s.floor {
		return RejectStale
	}
	if _, ok := s.ids[st.id]; ok {
		return RejectReplayed
	}
	if len(s.order) >= s.cap {
		if st.sent <= s.order[0].sent {
			return RejectStale // as old as what would be forgotten for it
		}
		s.forget()
	}
	s.ids[st.id] = struct{}{}
	heap.Push(&s.order, st)
	return ""
}

// forget drops the id sent first and refuses, from then on, all sent no
// later: a replay of it could otherwise pass.
func (s *seenIDs) forget() {
	st := heap.Pop(&s.order).(stamp)
	delete(s.ids, st.id)
	s.floor = max(s.floor, st.sent)
}

func (s *seenIDs) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.order)
}

// byAge is a min-heap of stamps by send time (container/heap).
type byAge []stamp

func (h byAge) Len() int           { return len(h) }
func (h byAge) Less(i, j int) bool { return h[i].sent < h[j].sent }
func (h byAge) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *byAge) Push(x any)        { *h = append(*h, x.(stamp)) }
func (h *byAge) Pop() any {
	old := *h
	st := old[len(old)-1]
	*h = old[:len(old)-1]
	return st
}
