package natsbus_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
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

	"tandem/adapters/bus/bustest"
	"tandem/adapters/bus/natsbus"
	"tandem/adapters/bus/natsbus/natstest"
	"tandem/core"
)

// testSecret is the deployment's TANDEM_BUS_SECRET in these tests.
var testSecret = []byte("0123456789abcdef0123456789abcdef")

func connect(t *testing.T, url, prefix string) *natsbus.Bus {
	t.Helper()
	return connectWith(t, natsbus.Config{URL: url, Prefix: prefix, Secret: testSecret})
}

func connectWith(t *testing.T, cfg natsbus.Config) *natsbus.Bus {
	t.Helper()
	b, err := natsbus.Connect(cfg, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// Two connections to one server stand for two processes.
func TestNATSBus(t *testing.T) {
	t.Parallel()
	srv := natstest.Start(t)
	bustest.Broadcast(t, func(t *testing.T) (core.Broadcast, core.Broadcast) {
		prefix := fmt.Sprintf("suite%d", suites.Add(1))
		a, b := connect(t, srv.URL(), prefix), connect(t, srv.URL(), prefix)
		waitConnected(t, a, b)
		return a, b
	})
}

// suites numbers the subtests, whose subjects are kept apart on the shared server.
var suites atomic.Int64

func waitConnected(t *testing.T, bs ...*natsbus.Bus) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for _, b := range bs {
		for !b.Connected() {
			if time.Now().After(deadline) {
				t.Fatal("not connected")
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// A NATS outage fails nothing: publishing while the server is down is
// buffered, and once a server is back on the same address both sides
// reconnect by themselves and messages flow again.
func TestNATSOutageAndReconnect(t *testing.T) {
	t.Parallel()
	srv := natstest.Start(t)
	port := srv.Port()
	a, b := connect(t, srv.URL(), "outage"), connect(t, srv.URL(), "outage")
	waitConnected(t, a, b)
	var heard atomic.Int64
	if _, err := b.Subscribe("live", func(context.Context, []byte) { heard.Add(1) }); err != nil {
		t.Fatal(err)
	}
	srv.Shutdown()
	for range 100 {
		if err := a.Publish(context.Background(), "live", []byte("while down")); err != nil {
			t.Fatalf("a publish during the outage failed: %v", err)
		}
	}
	natstest.StartAt(t, port)
	waitConnected(t, a, b)
	deadline := time.Now().Add(5 * time.Second)
	for heard.Load() == 0 {
		if err := a.Publish(context.Background(), "live", []byte("after")); err != nil {
			t.Fatal(err)
		}
		_ = a.Flush(time.Second)
		time.Sleep(20 * time.Millisecond)
		if time.Now().After(deadline) {
			t.Fatal("no message after the server came back")
		}
	}
}

// After an outage each process is told of the gap, and only once its
// subscriptions are back on the server: a message published anywhere from
// then on reaches them. What another process published during the outage
// may be lost (it sent it on reconnecting, maybe before this one was back),
// which is why subscribers need the gap. A stopped watcher hears no more.
func TestNATSReportsGapsAfterReconnecting(t *testing.T) {
	t.Parallel()
	srv := natstest.Start(t)
	port := srv.Port()
	a, b := connect(t, srv.URL(), "gaps"), connect(t, srv.URL(), "gaps")
	waitConnected(t, a, b)
	var mu sync.Mutex
	var heard []string
	if _, err := b.Subscribe("live", func(_ context.Context, d []byte) { mu.Lock(); heard = append(heard, string(d)); mu.Unlock() }); err != nil {
		t.Fatal(err)
	}
	gaps := make(chan struct{}, 10)
	b.OnGap(func() { gaps <- struct{}{} })
	var stopped atomic.Int64
	b.OnGap(func() { stopped.Add(1) })()
	time.Sleep(50 * time.Millisecond) // the first connection's own callback, if it comes
	for len(gaps) > 0 {
		<-gaps
	}
	srv.Shutdown()
	natstest.StartAt(t, port)
	select {
	case <-gaps:
	case <-time.After(10 * time.Second):
		t.Fatal("no gap reported after the server came back")
	}
	// b is subscribed again: what a publishes now, b hears
	waitConnected(t, a)
	mustPublish := func(s string) {
		if err := a.Publish(context.Background(), "live", []byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	mustPublish("after the gap")
	if err := a.Flush(time.Second); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		mu.Lock()
		got := slices.Contains(heard, "after the gap")
		mu.Unlock()
		if got {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a message published after the gap was reported did not arrive")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if n := stopped.Load(); n != 0 {
		t.Fatalf("a stopped gap watcher was called %d times", n)
	}
}

// Connecting while no server runs does not fail: the client retries.
func TestNATSStartsWithoutServer(t *testing.T) {
	t.Parallel()
	srv := natstest.Start(t)
	url := srv.URL()
	srv.Shutdown()
	b := connect(t, url, "late")
	if b.Connected() {
		t.Fatal("connected to a stopped server?")
	}
	if err := b.Publish(context.Background(), "live", []byte("x")); err != nil {
		t.Fatalf("publish while never connected: %v", err)
	}
}

// TestNATSDropsUnsignedAndMissigned: what a raw NATS client publishes on
// the bus's subject, unsigned, signed with another secret, signed for
// another subject or cut short, never reaches a subscriber and is reported
// by topic; a message of the same deployment (same secret) does.
func TestNATSDropsUnsignedAndMissigned(t *testing.T) {
	t.Parallel()
	srv := natstest.Start(t)
	var mu sync.Mutex
	var rejected []string
	b := connectWith(t, natsbus.Config{URL: srv.URL(), Prefix: "signed", Secret: testSecret,
		Rejected: func(topic string) { mu.Lock(); rejected = append(rejected, topic); mu.Unlock() }})
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
	raw, err := nats.Connect(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	mac := func(secret []byte, subject, data string) []byte {
		h := hmac.New(sha256.New, secret)
		h.Write([]byte(subject + "\x00" + data))
		return append(h.Sum(nil), data...)
	}
	forged := `{"user":"u1","type":"message.sent","data":{}}`
	for _, m := range []struct {
		subject string
		data    []byte
	}{
		{"signed.live", []byte(forged)}, // unsigned
		{"signed.live", mac([]byte("another secret, 32 characters long"), "signed.live", forged)}, // wrong secret
		{"signed.live", mac(testSecret, "signed.revoke", forged)},                                 // signed for another topic
		{"signed.live", mac(testSecret, "signed.live", forged)[:20]},                              // cut short
		{"signed.revoke", []byte(`{"tokens":["h"]}`)},                                             // an unsigned revocation
	} {
		if err := raw.Publish(m.subject, m.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := raw.Publish("signed.live", mac(testSecret, "signed.live", "raw but rightly signed")); err != nil {
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
	if !slices.Equal(rejected, []string{"live", "live", "live", "live", "revoke"}) {
		t.Fatalf("rejected %q", rejected)
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
// without the forged trace and without a lag; a process's own headers give
// both.
func TestNATSIgnoresForgedTraceHeaders(t *testing.T) {
	t.Parallel()
	srv := natstest.Start(t)
	type heard struct {
		data  string
		trace string
	}
	got := make(chan heard, 4)
	var lags atomic.Int32
	b := connectWith(t, natsbus.Config{URL: srv.URL(), Prefix: "meta", Secret: testSecret,
		Received: func(string, time.Duration) { lags.Add(1) }})
	a := connect(t, srv.URL(), "meta")
	waitConnected(t, a, b)
	if _, err := b.Subscribe("live", func(ctx context.Context, m []byte) {
		got <- heard{string(m), trace.SpanContextFromContext(ctx).TraceID().String()}
	}); err != nil {
		t.Fatal(err)
	}
	raw, err := nats.Connect(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	h := hmac.New(sha256.New, testSecret)
	h.Write([]byte("meta.live\x00forged trace"))
	msg := &nats.Msg{Subject: "meta.live", Data: append(h.Sum(nil), "forged trace"...), Header: nats.Header{}}
	msg.Header.Set("Traceparent", "00-11111111111111111111111111111111-2222222222222222-01")
	msg.Header.Set("Tandem-Sent", "1")
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
	if n := lags.Load(); n != 1 {
		t.Fatalf("%d lags measured, want 1 (the forged send time is not believed)", n)
	}
}
