package natsbus_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"

	"tandem/adapters/bus/bustest"
	"tandem/adapters/bus/natsbus"
	"tandem/adapters/bus/natsbus/natstest"
	"tandem/core"
)

func connect(t *testing.T, url, prefix string) *natsbus.Bus {
	t.Helper()
	b, err := natsbus.Connect(url, prefix, zap.NewNop())
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
	if _, err := b.Subscribe("live", func([]byte) { heard.Add(1) }); err != nil {
		t.Fatal(err)
	}
	srv.Shutdown()
	for range 100 {
		if err := a.Publish("live", []byte("while down")); err != nil {
			t.Fatalf("a publish during the outage failed: %v", err)
		}
	}
	natstest.StartAt(t, port)
	waitConnected(t, a, b)
	deadline := time.Now().Add(5 * time.Second)
	for heard.Load() == 0 {
		if err := a.Publish("live", []byte("after")); err != nil {
			t.Fatal(err)
		}
		_ = a.Flush(time.Second)
		time.Sleep(20 * time.Millisecond)
		if time.Now().After(deadline) {
			t.Fatal("no message after the server came back")
		}
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
	if err := b.Publish("live", []byte("x")); err != nil {
		t.Fatalf("publish while never connected: %v", err)
	}
}
