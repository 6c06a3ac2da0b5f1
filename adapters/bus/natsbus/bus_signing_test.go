// This file holds the tests of what the bus accepts from the wire: only
// rightly signed messages, each heard once within its window, a bounded
// memory of ids, a secret required, and trace headers that cannot be
// forged; with a raw NATS client and the frames it sends.

package natsbus_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"

	"tandem/adapters/bus/natsbus"
	"tandem/adapters/bus/natsbus/natstest"
	"tandem/core/coretest"
)

// frame is what natsbus puts on the wire, built here from its description
// (the package comment): MAC | sent | id | data.
func frame(secret []byte, subject string, sent time.Time, id [16]byte, data string) []byte {
	body := binary.BigEndian.AppendUint64(nil, uint64(sent.UnixMilli()))
	body = append(append(body, id[:]...), data...)
	h := hmac.New(sha256.New, secret)
	h.Write([]byte("tandem-bus/2\x00" + subject + "\x00"))
	h.Write(body)
	return append(h.Sum(nil), body...)
}

// ids numbers the frames the tests build by hand, so each has its own id.
var ids atomic.Uint64

func newID() [16]byte {
	var id [16]byte
	binary.BigEndian.PutUint64(id[8:], ids.Add(1))
	return id
}

// rawConn is a plain NATS client: anyone who can reach the server.
func rawConn(t *testing.T, url string) *nats.Conn {
	t.Helper()
	raw, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(raw.Close)
	return raw
}

// receiver is a process subscribed to "live" that tells what became of
// each message: "heard DATA" or "rejected REASON". Every message arriving
// has exactly one outcome, so a test waits for it instead of sleeping.
type receiver struct {
	*natsbus.Bus
	outcomes chan string
	mu       sync.Mutex
	lags     map[string]time.Duration // by data, as Config.Received told them
}

func listen(t *testing.T, cfg natsbus.Config) *receiver {
	t.Helper()
	r := &receiver{outcomes: make(chan string, 64), lags: map[string]time.Duration{}}
	var lag atomic.Int64 // Received, then the handler, on the subscription's goroutine
	cfg.Secret = testSecret
	cfg.Rejected = func(topic, reason string) { r.outcomes <- "rejected " + reason }
	cfg.Received = func(_ string, d time.Duration) { lag.Store(int64(d)) }
	r.Bus = connectWith(t, cfg)
	waitConnected(t, r.Bus)
	if _, err := r.Subscribe("live", func(_ context.Context, m []byte) {
		r.mu.Lock()
		r.lags[string(m)] = time.Duration(lag.Load())
		r.mu.Unlock()
		r.outcomes <- "heard " + string(m)
	}); err != nil {
		t.Fatal(err)
	}
	return r
}

// want fails unless the next message's outcome is want.
func (r *receiver) want(t *testing.T, want string) {
	t.Helper()
	select {
	case got := <-r.outcomes:
		if got != want {
			t.Fatalf("%s, want %s", got, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("nothing became of a message (want %s)", want)
	}
}

func (r *receiver) lag(data string) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lags[data]
}

func publish(t *testing.T, b *natsbus.Bus, data string) {
	t.Helper()
	if err := b.Publish(context.Background(), "live", []byte(data)); err != nil {
		t.Fatal(err)
	}
}

// capture returns what a raw client subscribed to subject receives.
func capture(t *testing.T, raw *nats.Conn, subject string) <-chan *nats.Msg {
	t.Helper()
	got := make(chan *nats.Msg, 64)
	if _, err := raw.ChanSubscribe(subject, got); err != nil {
		t.Fatal(err)
	}
	if err := raw.Flush(); err != nil {
		t.Fatal(err)
	}
	return got
}

func next(t *testing.T, msgs <-chan *nats.Msg) *nats.Msg {
	t.Helper()
	select {
	case m := <-msgs:
		return m
	case <-time.After(5 * time.Second):
		t.Fatal("nothing captured")
		return nil
	}
}

// replay publishes a captured message again as it was, headers and all.
func replay(t *testing.T, raw *nats.Conn, m *nats.Msg) {
	t.Helper()
	if err := raw.PublishMsg(&nats.Msg{Subject: m.Subject, Header: m.Header, Data: m.Data}); err != nil {
		t.Fatal(err)
	}
}

// TestNATSDropsUnsignedAndMissigned: what a raw NATS client publishes on
// the bus's subject, unsigned, signed with another secret, signed for
// another subject, cut short or in the older format (no stamp), never
// reaches a subscriber and is reported by topic; a message of the same
// deployment (same secret) does.
func TestNATSDropsUnsignedAndMissigned(t *testing.T) {
	t.Parallel()
	srv := natstest.Start(t)
	var mu sync.Mutex
	var rejected []string
	b := connectWith(t, natsbus.Config{URL: srv.URL(), Prefix: "signed", Secret: testSecret,
		Rejected: func(topic, reason string) { mu.Lock(); rejected = append(rejected, topic+" "+reason); mu.Unlock() }})
	a := connect(t, srv.URL(), "signed")
	waitConnected(t, a, b)
	var heard []string
	done := make(chan struct{}, 10)
	if _, err := b.Subscribe("live", func(_ context.Context, m []byte) {
		mu.Lock()
		heard = append(heard, string(m))
		mu.Unlock()
		done <- struct{}{}
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Subscribe("revoke", func(_ context.Context, m []byte) { mu.Lock(); heard = append(heard, string(m)); mu.Unlock() }); err != nil {
		t.Fatal(err)
	}
	raw := rawConn(t, srv.URL())
	older := func(secret []byte, subject, data string) []byte { // before messages were stamped
		h := hmac.New(sha256.New, secret)
		h.Write([]byte(subject + "\x00" + data))
		return append(h.Sum(nil), data...)
	}
	now := time.Now()
	forged := `{"user":"u1","type":"message.sent","data":{}}`
	for _, m := range []struct {
		subject string
		data    []byte
	}{
		{"signed.live", []byte(forged)}, // unsigned
		{"signed.live", frame([]byte("another secret, 32 characters long"), "signed.live", now, newID(), forged)}, // wrong secret
		{"signed.live", frame(testSecret, "signed.revoke", now, newID(), forged)},                                 // signed for another topic
		{"signed.live", frame(testSecret, "signed.live", now, newID(), forged)[:40]},                              // cut short
		{"signed.live", older(testSecret, "signed.live", forged)},                                                 // the older format
		{"signed.revoke", []byte(`{"tokens":["h"]}`)},                                                             // an unsigned revocation
	} {
		if err := raw.Publish(m.subject, m.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := raw.Publish("signed.live", frame(testSecret, "signed.live", now, newID(), "raw but rightly signed")); err != nil {
		t.Fatal(err)
	}
	if err := a.Publish(context.Background(), "live", []byte("from a process")); err != nil {
		t.Fatal(err)
	}
	_ = raw.Flush()
	_ = a.Flush(time.Second)
	for range 2 {
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			t.Fatal("the signed messages did not arrive")
		}
	}
	time.Sleep(50 * time.Millisecond) // a late forgery would show now
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(heard) // two connections: no order between them
	if !slices.Equal(heard, []string{"from a process", "raw but rightly signed"}) {
		t.Fatalf("heard %q", heard)
	}
	slices.Sort(rejected)
	if want := []string{"live signature", "live signature", "live signature", "live signature", "live signature",
		"revoke signature"}; !slices.Equal(rejected, want) {
		t.Fatalf("rejected %q, want %q", rejected, want)
	}
}

// TestNATSDropsReplayedMessages: a signed message someone captured on the
// server and publishes again, as it was or without its headers, is dropped
// and reported as a replay, however often it comes; once older than MaxAge
// it is still dropped (as stale), even after the clock steps back. Each subscription remembers on its own,
// so a second subscription to the topic hears the message too.
func TestNATSDropsReplayedMessages(t *testing.T) {
	t.Parallel()
	srv := natstest.Start(t)
	clock := coretest.NewClock(time.Now())
	b := listen(t, natsbus.Config{URL: srv.URL(), Prefix: "replay", Clock: clock})
	second := make(chan string, 4)
	stopSecond, err := b.Subscribe("live", func(_ context.Context, m []byte) { second <- string(m) })
	if err != nil {
		t.Fatal(err)
	}
	a := connectWith(t, natsbus.Config{URL: srv.URL(), Prefix: "replay", Secret: testSecret, Clock: clock})
	raw := rawConn(t, srv.URL())
	captured := capture(t, raw, "replay.live")
	waitConnected(t, a)

	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{9}, SpanID: trace.SpanID{8}, TraceFlags: trace.FlagsSampled})
	if err := a.Publish(trace.ContextWithSpanContext(context.Background(), sc), "live", []byte("once")); err != nil {
		t.Fatal(err)
	}
	b.want(t, "heard once")
	select {
	case m := <-second:
		if m != "once" {
			t.Fatalf("the second subscription heard %q", m)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the second subscription did not hear the message")
	}
	stopSecond() // from here on, one outcome per message
	m := next(t, captured)
	if m.Header.Get("Traceparent") == "" {
		t.Fatal("the captured message has no headers to replay")
	}
	for range 2 {
		replay(t, raw, m)
		b.want(t, "rejected replayed")
	}
	if err := raw.Publish(m.Subject, m.Data); err != nil { // stripped of its headers
		t.Fatal(err)
	}
	b.want(t, "rejected replayed")

	clock.Advance(natsbus.MaxAge + time.Millisecond) // its id is forgotten now
	replay(t, raw, m)
	b.want(t, "rejected stale")
	publish(t, a, "fresh")
	b.want(t, "heard fresh")
	clock.Advance(-natsbus.MaxAge) // the receiver's clock stepped back (NTP): what it forgot stays refused
	replay(t, raw, m)
	b.want(t, "rejected stale")
}

// TestNATSDropsMessagesOutsideTheWindow: a signed message is heard up to
// MaxAge after it was sent and up to MaxSkew before (by the receiver's
// clock), and dropped as stale beyond either; Config.Received is told its
// age.
func TestNATSDropsMessagesOutsideTheWindow(t *testing.T) {
	t.Parallel()
	srv := natstest.Start(t)
	start := time.Now().Truncate(time.Millisecond) // a stamp has milliseconds
	sender, clock := coretest.NewClock(start), coretest.NewClock(start)
	b := listen(t, natsbus.Config{URL: srv.URL(), Prefix: "window", Clock: clock})
	a := connectWith(t, natsbus.Config{URL: srv.URL(), Prefix: "window", Secret: testSecret, Clock: sender})
	waitConnected(t, a)
	for i, c := range []struct {
		name string
		age  time.Duration // the receiver's clock minus the sender's
		want string
	}{
		{"just sent", 0, "heard"},
		{"sent a minute ago", natsbus.MaxAge, "heard"},
		{"sent a minute and a millisecond ago", natsbus.MaxAge + time.Millisecond, "rejected stale"},
		{"sent an hour ago", time.Hour, "rejected stale"},
		{"sent the skew ahead", -natsbus.MaxSkew, "heard"},
		{"sent the skew and a millisecond ahead", -natsbus.MaxSkew - time.Millisecond, "rejected stale"},
	} {
		sent := start.Add(time.Duration(i) * 24 * time.Hour) // time goes on between the rows
		sender.Set(sent)
		clock.Set(sent.Add(c.age))
		publish(t, a, c.name)
		if c.want != "heard" {
			b.want(t, c.want)
			continue
		}
		b.want(t, "heard "+c.name)
		if got := b.lag(c.name); got != max(c.age, 0) {
			t.Fatalf("%s: lag %v, want %v", c.name, got, max(c.age, 0))
		}
	}
}

// TestNATSRemembersABoundedNumberOfIDs: a subscription remembers at most
// SeenCap ids, and none older than MaxAge. What it had to forget early is
// refused all the same (as stale), so the cap never lets a replay through;
// and while full, a message sent no later than the oldest it remembers is
// refused rather than remembered in its place.
func TestNATSRemembersABoundedNumberOfIDs(t *testing.T) {
	t.Parallel()
	srv := natstest.Start(t)
	start := time.Now().Truncate(time.Millisecond)
	clock := coretest.NewClock(start)
	b := listen(t, natsbus.Config{URL: srv.URL(), Prefix: "bounded", Clock: clock, SeenCap: 8})
	a := connectWith(t, natsbus.Config{URL: srv.URL(), Prefix: "bounded", Secret: testSecret, Clock: clock})
	raw := rawConn(t, srv.URL())
	captured := capture(t, raw, "bounded.live")
	waitConnected(t, a)
	var sent []*nats.Msg
	for i := range 20 {
		clock.Advance(time.Millisecond) // each sent in its own millisecond
		publish(t, a, fmt.Sprint(i))
		b.want(t, fmt.Sprint("heard ", i))
		sent = append(sent, next(t, captured))
	}
	if n := b.Remembered(); n != 8 {
		t.Fatalf("%d ids remembered after 20 messages, want 8 (SeenCap)", n)
	}
	replay(t, raw, sent[0]) // forgotten for the cap
	b.want(t, "rejected stale")
	replay(t, raw, sent[19])
	b.want(t, "rejected replayed")
	// remembered: sent 13 to 20 ms after start; forgotten: up to 12 ms
	if err := raw.Publish("bounded.live", frame(testSecret, "bounded.live", start.Add(13*time.Millisecond), newID(), "late")); err != nil {
		t.Fatal(err)
	}
	b.want(t, "rejected stale")

	clock.Advance(natsbus.MaxAge + time.Millisecond)
	publish(t, a, "a minute on")
	b.want(t, "heard a minute on")
	if n := b.Remembered(); n != 1 {
		t.Fatalf("%d ids remembered a minute on, want 1 (the older ones pruned)", n)
	}
}

// A bus with no secret is refused: it never runs unsigned.
func TestNATSNeedsASecret(t *testing.T) {
	if _, err := natsbus.Connect(natsbus.Config{URL: "nats://127.0.0.1:1"}, zap.NewNop()); err == nil {
		t.Fatal("connected without a secret")
	}
}

// A rightly signed message whose trace headers were forged or moved (a
// traceparent put on it by someone without the secret) is still heard, but
// without the forged trace; a process's own headers give it.
func TestNATSIgnoresForgedTraceHeaders(t *testing.T) {
	t.Parallel()
	srv := natstest.Start(t)
	type heard struct {
		data  string
		trace string
	}
	got := make(chan heard, 4)
	b := connectWith(t, natsbus.Config{URL: srv.URL(), Prefix: "meta", Secret: testSecret})
	a := connect(t, srv.URL(), "meta")
	waitConnected(t, a, b)
	if _, err := b.Subscribe("live", func(ctx context.Context, m []byte) {
		got <- heard{string(m), trace.SpanContextFromContext(ctx).TraceID().String()}
	}); err != nil {
		t.Fatal(err)
	}
	raw := rawConn(t, srv.URL())
	msg := &nats.Msg{Subject: "meta.live", Data: frame(testSecret, "meta.live", time.Now(), newID(), "forged trace"), Header: nats.Header{}}
	msg.Header.Set("Traceparent", "00-11111111111111111111111111111111-2222222222222222-01")
	msg.Header.Set("Tandem-Meta-Mac", strings.Repeat("ab", 32))
	if err := raw.PublishMsg(msg); err != nil {
		t.Fatal(err)
	}
	_ = raw.Flush()
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{9}, SpanID: trace.SpanID{8}, TraceFlags: trace.FlagsSampled})
	if err := a.Publish(trace.ContextWithSpanContext(context.Background(), sc), "live", []byte("own trace")); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"forged trace": trace.TraceID{}.String(), "own trace": sc.TraceID().String()}
	for range 2 {
		select {
		case m := <-got:
			if want[m.data] != m.trace {
				t.Fatalf("%q arrived with trace %s, want %s", m.data, m.trace, want[m.data])
			}
		case <-time.After(2 * time.Second):
			t.Fatal("a message did not arrive")
		}
	}
}
