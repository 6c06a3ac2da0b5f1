package bootstrap

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.uber.org/zap"

	"tandem/adapters/bus/localbus"
	"tandem/core"
)

// downBus refuses every publish, as NATS does once its reconnect buffer is full.
type downBus struct{ core.Broadcast }

func (downBus) Publish(context.Context, string, []byte) error {
	return errors.New("nats: outbound buffer limit exceeded")
}

func TestReportingBusCountsWhatItCouldNotPublish(t *testing.T) {
	errs := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "x"}, []string{"topic"})
	b := &reportingBus{Broadcast: downBus{localbus.New()}, log: zap.NewNop(), errs: errs}
	for range 3 {
		if err := b.Publish(context.Background(), core.TopicLive, []byte("{}")); err == nil {
			t.Fatal("the error was swallowed")
		}
	}
	_ = b.Publish(context.Background(), core.TopicRevoke, []byte("{}"))
	if got := testutil.ToFloat64(errs.WithLabelValues(core.TopicLive)); got != 3 {
		t.Fatalf("live errors counted %v", got)
	}
	if got := testutil.ToFloat64(errs.WithLabelValues(core.TopicRevoke)); got != 1 {
		t.Fatalf("revoke errors counted %v", got)
	}
}

// A revocation evicts here at once, even when the bus refuses it, and
// reaches the other processes' caches through the bus otherwise.
func TestSharedRevocations(t *testing.T) {
	bus := localbus.New()
	var here, there []string
	shared := sharedRevocations{bus: bus, log: zap.NewNop(), revoked: func(h []string) { here = append(here, h...) }}
	stop, _ := bus.Subscribe(core.TopicRevoke, func(_ context.Context, data []byte) { there = append(there, decodeRevocation(data)...) })
	defer stop()
	shared.Forget("h1", "h2")
	shared.Forget() // nothing to say
	if len(here) != 2 || len(there) != 2 || there[1] != "h2" {
		t.Fatalf("here %v there %v", here, there)
	}
	down := sharedRevocations{bus: downBus{bus}, log: zap.NewNop(), revoked: func(h []string) { here = append(here, h...) }}
	start := time.Now()
	down.Forget("h3")
	if here[2] != "h3" || time.Since(start) > revocationFlush {
		t.Fatalf("a refused revocation: here %v after %v", here, time.Since(start))
	}
	if decodeRevocation([]byte("not json")) != nil {
		t.Fatal("a malformed revocation decoded")
	}
}
