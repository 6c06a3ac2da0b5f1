package httpapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"go.uber.org/fx/fxtest"
	"go.uber.org/zap"

	"tandem/adapters/bus/localbus"
	"tandem/core"
	"tandem/modules/accounts"
	"tandem/modules/changes"
)

func newTestStreams(t *testing.T, sc StreamConfig) (*Streams, *localbus.Bus) {
	t.Helper()
	bus := localbus.New()
	if sc.Recheck == 0 {
		sc.Recheck = time.Hour
	}
	lc := fxtest.NewLifecycle(t)
	h, err := NewStreams(lc, Config{Stream: sc}, bus, core.NewUUIDv7(), core.SystemClock{}, &sessionStore{}, emptyFeed(), zap.NewNop(), NewMetrics())
	if err != nil {
		t.Fatal(err)
	}
	return h, bus
}

// emptyFeed is a change feed that holds nothing (these tests are about the
// bus and the replay buffer; tests/stream_feed_test.go follows real feeds).
func emptyFeed() *changes.Service {
	return changes.NewService(noChanges{}, changes.Settings{}, core.SystemClock{})
}

type noChanges struct{ changes.Repository }

func (noChanges) Since(context.Context, string, int64, int) ([]core.Change, error) { return nil, nil }
func (noChanges) Last(context.Context, string) (int64, error)                      { return 0, nil }

// sessionStore is the accounts repository as the rechecks read it: the
// tokens it holds, or an outage.
type sessionStore struct {
	accounts.Repository // only Session is called
	mu                  sync.Mutex
	live                map[string]time.Time // token hash: expiry
	down                bool
	reads               int
}

func (s *sessionStore) Session(_ context.Context, hash string) (accounts.Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads++
	if s.down {
		return accounts.Session{}, core.Unavailable("unavailable", "httpapi.databaseDown", "database down")
	}
	exp, ok := s.live[hash]
	if !ok {
		return accounts.Session{}, core.NotFound("not_found", "httpapi.noSuchToken", "no such token")
	}
	return accounts.Session{UserID: "ann", ExpiresAt: exp}, nil
}

func (s *sessionStore) set(f func(s *sessionStore)) { s.mu.Lock(); f(s); s.mu.Unlock() }

// gappyBus is the local bus with gaps on demand, as NATS has them.
type gappyBus struct {
	*localbus.Bus
	mu   sync.Mutex
	gaps []func()
}

func (b *gappyBus) OnGap(g func()) func() {
	b.mu.Lock()
	b.gaps = append(b.gaps, g)
	b.mu.Unlock()
	return func() {}
}

func (b *gappyBus) gap() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, g := range b.gaps {
		g()
	}
}

// startedStreams runs Streams with its recheck loop on a bus with gaps.
func startedStreams(t *testing.T, recheck time.Duration, store *sessionStore) (*Streams, *gappyBus) {
	t.Helper()
	bus := &gappyBus{Bus: localbus.New()}
	lc := fxtest.NewLifecycle(t)
	sc := StreamConfig{Heartbeat: time.Hour, ReplayMax: 100, ReplayAge: time.Minute, PerUser: 8, Max: 10, ReplayBytes: 1 << 20, Recheck: recheck}
	h, err := NewStreams(lc, Config{Stream: sc}, bus, core.NewUUIDv7(), core.SystemClock{}, store, emptyFeed(), zap.NewNop(), NewMetrics())
	if err != nil {
		t.Fatal(err)
	}
	lc.RequireStart()
	t.Cleanup(lc.RequireStop)
	return h, bus
}

// waitEnded fails unless s ends for reason within d.
func waitEnded(t *testing.T, s *stream, d time.Duration, reason string) {
	t.Helper()
	select {
	case <-s.done:
		if s.reason != reason {
			t.Fatalf("the stream ended %q, want %q", s.reason, reason)
		}
	case <-time.After(d):
		t.Fatalf("the stream was still open after %v", d)
	}
}

// With no bus message at all, the periodic recheck ends the stream of a
// token gone from the store, and of one past its expiry; the others go on,
// and a store outage ends none.
func TestStreamRecheckEndsStreamsOfDeadTokens(t *testing.T) {
	t.Parallel()
	later := time.Now().Add(time.Hour)
	store := &sessionStore{live: map[string]time.Time{"t1": later, "t2": later, "t3": later}}
	h, _ := startedStreams(t, 20*time.Millisecond, store)
	evicted := make(chan string, 10)
	h.ForgetWith(func(hashes ...string) {
		for _, x := range hashes {
			evicted <- x
		}
	})
	revoked, _, _, _ := h.attach("ann", "t1", "")
	expired, _, _, _ := h.attach("ann", "t2", "")
	kept, _, _, _ := h.attach("ann", "t3", "")

	store.set(func(s *sessionStore) { s.down = true; delete(s.live, "t1") })
	time.Sleep(100 * time.Millisecond) // several rounds, every read failing
	if ended(revoked) || ended(kept) {
		t.Fatal("a store outage ended a stream")
	}
	store.set(func(s *sessionStore) { s.down = false; s.live["t2"] = time.Now().Add(-time.Second) })
	waitEnded(t, revoked, time.Second, "revoked")
	waitEnded(t, expired, time.Second, "expired")
	if got := <-evicted; got != "t1" || len(evicted) != 0 { // the token cache forgets the revoked one
		t.Fatalf("evicted %q and %d more, want t1 alone", got, len(evicted))
	}
	time.Sleep(60 * time.Millisecond)
	if ended(kept) {
		t.Fatalf("a live token's stream ended: %s", kept.reason)
	}
}

// A bus gap sends every open stream a reset, in line with its events,
// forgets the buffers a resume would be served from (they have a hole),
// and rechecks the tokens at once rather than at the next round.
func TestStreamGapResetsAndRechecksAtOnce(t *testing.T) {
	t.Parallel()
	later := time.Now().Add(time.Hour)
	store := &sessionStore{live: map[string]time.Time{"t1": later, "t2": later}}
	h, bus := startedStreams(t, time.Hour, store)
	publishLive(t, bus, "e1", "ann")
	revoked, _, _, _ := h.attach("ann", "t1", "")
	kept, _, _, _ := h.attach("ann", "t2", "")
	publishLive(t, bus, "e2", "ann")

	store.set(func(s *sessionStore) { delete(s.live, "t1") })
	bus.gap()
	publishLive(t, bus, "e3", "ann")
	waitEnded(t, revoked, time.Second, "revoked")
	var got []string
	for range 3 {
		select {
		case e := <-kept.events:
			got = append(got, e.ID+"/"+e.Type)
		case <-time.After(time.Second):
			t.Fatalf("the stream got %v and then nothing", got)
		}
	}
	if want := []string{"e2/message.sent", "/reset", "e3/message.sent"}; !slices.Equal(got, want) {
		t.Fatalf("the stream got %v, want %v", got, want)
	}
	if ended(kept) {
		t.Fatalf("a live token's stream ended: %s", kept.reason)
	}
	// a resume from before the gap is a reset; one from after it is served
	if _, _, reset, _ := h.attach("ann", "t2", "e2"); !reset {
		t.Fatal("a resume across the gap was served from a buffer with a hole")
	}
	if _, backlog, reset, _ := h.attach("ann", "t2", "e3"); reset || len(backlog) != 0 {
		t.Fatalf("a resume after the gap: %v reset %v", ids(backlog), reset)
	}
}

func publishLive(t *testing.T, bus core.Broadcast, id, user string) {
	t.Helper()
	b, _ := json.Marshal(liveEvent{ID: id, User: user, Type: "message.sent", Data: json.RawMessage(`{"n":"` + id + `"}`)})
	if err := bus.Publish(context.Background(), core.TopicLive, b); err != nil {
		t.Fatal(err)
	}
}

func ids(es []liveEvent) string {
	out := ""
	for _, e := range es {
		out += e.ID + " "
	}
	return out
}

func TestStreamResumeFromTheBuffer(t *testing.T) {
	t.Parallel()
	h, bus := newTestStreams(t, StreamConfig{Heartbeat: time.Hour, ReplayMax: 3, ReplayAge: time.Minute, PerUser: 2, Max: 10, ReplayBytes: 1 << 20})
	for i := 1; i <= 5; i++ {
		publishLive(t, bus, fmt.Sprint("e", i), "ann")
	}
	publishLive(t, bus, "b1", "bob")
	cases := []struct {
		last, want string
		reset      bool
	}{
		{"", "", false}, // a fresh stream replays nothing
		{"e3", "e4 e5 ", false},
		{"e5", "", false},  // up to date
		{"e2", "", true},   // fell out of the last 3
		{"b1", "", true},   // another user's event is not ann's
		{"nope", "", true}, // never was
	}
	for _, tc := range cases {
		s, backlog, reset, err := h.attach("ann", "tok", tc.last)
		if err != nil || ids(backlog) != tc.want || reset != tc.reset {
			t.Fatalf("after %q: %q reset %v err %v", tc.last, ids(backlog), reset, err)
		}
		h.detach(s)
	}
	// past ReplayAge everything is gone, and the user with it
	h.expire(time.Now().Add(2 * time.Minute))
	if _, ok := h.users["ann"]; ok {
		t.Fatal("an idle user's buffer outlived ReplayAge")
	}
}

func TestStreamCaps(t *testing.T) {
	t.Parallel()
	h, bus := newTestStreams(t, StreamConfig{Heartbeat: time.Hour, ReplayMax: 100, ReplayAge: time.Minute, PerUser: 2, Max: 3, ReplayBytes: 1 << 20})
	first, _, _, _ := h.attach("ann", "t1", "")
	second, _, _, _ := h.attach("ann", "t2", "")
	third, _, _, _ := h.attach("ann", "t3", "") // beyond 2 per user: the oldest ends
	if !ended(first) || first.reason != "replaced" || ended(second) || ended(third) {
		t.Fatal("the per-user cap did not end the oldest stream")
	}
	h.detach(first)
	_, _, _, _ = h.attach("bob", "t4", "")
	if _, _, _, err := h.attach("cid", "t5", ""); core.KindOf(err) != core.KindUnavailable {
		t.Fatalf("beyond the process cap: %v", err)
	}
	// a stream that does not read is ended once its buffer is full, and
	// nobody else waits for it
	for i := range sendBuffer + 1 {
		publishLive(t, bus, fmt.Sprint("m", i), "ann")
	}
	if !ended(second) || second.reason != "lagging" {
		t.Fatal("a lagging stream was not ended")
	}
	h.EndSessions("t3")
	if !ended(third) || third.reason != "lagging" && third.reason != "revoked" {
		t.Fatal("EndSessions left the stream open")
	}
}

func ended(s *stream) bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// After a bus gap no event reaches a stream before its token is found in
// the store again: a revocation lost in the gap ends the stream before the
// partner's next message is written, however the bus ordered the two.
func TestAGapHoldsEventsUntilTheTokenIsCheckedAgain(t *testing.T) {
	t.Parallel()
	later := time.Now().Add(time.Hour)
	store := &sessionStore{live: map[string]time.Time{"t1": later, "t2": later}}
	sc := StreamConfig{Heartbeat: time.Hour, ReplayMax: 100, ReplayAge: time.Minute, PerUser: 8, Max: 10, ReplayBytes: 1 << 20, Recheck: time.Hour}
	bus := &gappyBus{Bus: localbus.New()}
	// not started: no recheck round reads the store beside confirmed
	h, err := NewStreams(fxtest.NewLifecycle(t), Config{Stream: sc}, bus, core.NewUUIDv7(), core.SystemClock{}, store, emptyFeed(), zap.NewNop(), NewMetrics())
	if err != nil {
		t.Fatal(err)
	}
	kept, _, _, _ := h.attach("ann", "t1", "")
	reads := func() int { store.mu.Lock(); defer store.mu.Unlock(); return store.reads }
	if !h.confirmed(kept) || reads() != 0 {
		t.Fatalf("a stream opened since the last gap was looked up (%d reads)", reads())
	}
	bus.gap()
	first := h.confirmed(kept)
	second := h.confirmed(kept) // confirmed in this gap: no second lookup
	if !first || !second || reads() != 1 {
		t.Fatalf("a live token after a gap: %v %v, want one lookup, got %d", first, second, reads())
	}

	revoked, _, _, _ := h.attach("ann", "t2", "")
	var out bytes.Buffer
	served := make(chan struct{})
	go func() {
		defer close(served)
		w := bufio.NewWriter(&out)
		h.serve(&sseWriter{w: w}, revoked, nil, false, time.Time{})
	}()
	store.set(func(s *sessionStore) { delete(s.live, "t2") }) // logged out elsewhere; the bus lost the word
	bus.gap()
	h.receive(context.Background(), encodeLive(liveEvent{ID: "after-logout", User: "ann", Type: "message.sent", Data: []byte(`{}`)}))
	select {
	case <-served:
	case <-time.After(5 * time.Second):
		t.Fatal("the revoked stream is still open")
	}
	if revoked.reason != "revoked" || bytes.Contains(out.Bytes(), []byte("after-logout")) {
		t.Fatalf("ended %q, wrote:\n%s", revoked.reason, out.String())
	}
}
