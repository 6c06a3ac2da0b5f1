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
// bus and the caps; tests/stream_feed_test.go follows real feeds).
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
	sc := StreamConfig{Heartbeat: time.Hour, PerUser: 8, Max: 10, Recheck: recheck}
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
	revoked, _ := h.attach("ann", "t1")
	expired, _ := h.attach("ann", "t2")
	kept, _ := h.attach("ann", "t3")

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

// A bus gap sends every open stream word to catch up from the feed, in
// line with its events, and rechecks the tokens at once rather than at the
// next round.
func TestStreamGapCatchesUpAndRechecksAtOnce(t *testing.T) {
	t.Parallel()
	later := time.Now().Add(time.Hour)
	store := &sessionStore{live: map[string]time.Time{"t1": later, "t2": later}}
	h, bus := startedStreams(t, time.Hour, store)
	publishLive(t, bus, "e1", "ann")
	revoked, _ := h.attach("ann", "t1")
	kept, _ := h.attach("ann", "t2")
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
	if want := []string{"e2/message.sent", "/", "e3/message.sent"}; !slices.Equal(got, want) {
		t.Fatalf("the stream got %v, want %v", got, want)
	}
	if ended(kept) {
		t.Fatalf("a live token's stream ended: %s", kept.reason)
	}
}

func publishLive(t *testing.T, bus core.Broadcast, id, user string) {
	t.Helper()
	b, _ := json.Marshal(liveEvent{ID: id, User: user, Type: "message.sent", Data: json.RawMessage(`{"n":"` + id + `"}`)})
	if err := bus.Publish(context.Background(), core.TopicLive, b); err != nil {
		t.Fatal(err)
	}
}

// A user with no stream here holds nothing in this process: an event for
// them is dropped (the feed keeps the changes), and the last stream's
// detach forgets the user.
func TestStreamKeepsNothingForUsersWithoutAStream(t *testing.T) {
	t.Parallel()
	h, bus := newTestStreams(t, StreamConfig{Heartbeat: time.Hour, PerUser: 2, Max: 10})
	publishLive(t, bus, "e1", "ann")
	s, _ := h.attach("ann", "tok")
	publishLive(t, bus, "e2", "ann")
	if e := <-s.events; e.ID != "e2" || len(s.events) != 0 {
		t.Fatalf("the stream got %+v and %d more, want e2 alone", e, len(s.events))
	}
	h.detach(s)
	publishLive(t, bus, "e3", "ann")
	if len(h.users) != 0 {
		t.Fatalf("a user without a stream is held: %v", h.users)
	}
}

func TestStreamCaps(t *testing.T) {
	t.Parallel()
	h, bus := newTestStreams(t, StreamConfig{Heartbeat: time.Hour, PerUser: 2, Max: 3})
	first, _ := h.attach("ann", "t1")
	second, _ := h.attach("ann", "t2")
	third, _ := h.attach("ann", "t3") // beyond 2 per user: the oldest ends
	if !ended(first) || first.reason != "replaced" || ended(second) || ended(third) {
		t.Fatal("the per-user cap did not end the oldest stream")
	}
	h.detach(first)
	_, _ = h.attach("bob", "t4")
	if _, err := h.attach("cid", "t5"); core.KindOf(err) != core.KindUnavailable {
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
	sc := StreamConfig{Heartbeat: time.Hour, PerUser: 8, Max: 10, Recheck: time.Hour}
	bus := &gappyBus{Bus: localbus.New()}
	// not started: no recheck round reads the store beside confirmed
	h, err := NewStreams(fxtest.NewLifecycle(t), Config{Stream: sc}, bus, core.NewUUIDv7(), core.SystemClock{}, store, emptyFeed(), zap.NewNop(), NewMetrics())
	if err != nil {
		t.Fatal(err)
	}
	kept, _ := h.attach("ann", "t1")
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

	revoked, _ := h.attach("ann", "t2")
	var out bytes.Buffer
	served := make(chan struct{})
	go func() {
		defer close(served)
		w := bufio.NewWriter(&out)
		h.serve(&sseWriter{w: w}, revoked, false, time.Time{})
	}()
	store.set(func(s *sessionStore) { delete(s.live, "t2") }) // logged out elsewhere; the bus lost the word
	bus.gap()
	h.receive(context.Background(), encodeLive(liveEvent{ID: "e1", User: "ann", Type: "message.sent", Data: []byte(`{"body":"after-logout"}`)}))
	select {
	case <-served:
	case <-time.After(5 * time.Second):
		t.Fatal("the revoked stream is still open")
	}
	if revoked.reason != "revoked" || bytes.Contains(out.Bytes(), []byte("after-logout")) {
		t.Fatalf("ended %q, wrote:\n%s", revoked.reason, out.String())
	}
}
