package natsbus_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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

// Losing the server is told at once, before the gap that follows the
// reconnection: a live stream holds its events from then on until its
// token is looked up again. A stopped watcher hears no more.
func TestNATSReportsTheLossOfTheServer(t *testing.T) {
	t.Parallel()
	srv := natstest.Start(t)
	b := connect(t, srv.URL(), "lost")
	waitConnected(t, b)
	lost, gaps := make(chan struct{}, 10), make(chan struct{}, 10)
	b.OnDisconnect(func() { lost <- struct{}{} })
	b.OnGap(func() { gaps <- struct{}{} })
	var stopped atomic.Int64
	b.OnDisconnect(func() { stopped.Add(1) })()
	time.Sleep(50 * time.Millisecond) // the first connection's own gap, if it comes
	for len(gaps) > 0 {
		<-gaps
	}
	srv.Shutdown()
	select {
	case <-lost:
	case <-time.After(10 * time.Second):
		t.Fatal("the loss of the server was not told")
	}
	if len(gaps) != 0 {
		t.Fatal("a gap was told before the server came back")
	}
	if stopped.Load() != 0 {
		t.Fatal("a stopped watcher heard the loss")
	}
}
