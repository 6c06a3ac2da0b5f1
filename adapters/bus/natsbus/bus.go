// Package natsbus is the Broadcast over NATS (TANDEM_BUS=nats://HOST:PORT):
// core NATS publish/subscribe, at most once, shared by every process that
// connects to the same server with the same subject prefix.
package natsbus

import (
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"go.uber.org/zap"

	"tandem/core"
)

var _ core.Broadcast = (*Bus)(nil)

// Pending bounds what one subscription may hold unhandled before NATS drops
// messages for it (a slow consumer): at most once, never unbounded memory.
const (
	pendingMsgs  = 65536
	pendingBytes = 64 << 20
)

// Bus publishes on "<prefix>.<topic>". The connection reconnects by itself
// forever; while it is down, publishes wait in the client's reconnect buffer
// (8 MiB) and an error is returned only once that is full.
type Bus struct {
	nc     *nats.Conn
	prefix string
	log    *zap.Logger
}

// Connect dials url. A server that is not up yet is not an error: the
// client keeps trying in the background, so a NATS outage never stops a
// start or fails a request.
func Connect(url, prefix string, log *zap.Logger) (*Bus, error) {
	if prefix == "" {
		prefix = "tandem"
	}
	nc, err := nats.Connect(url,
		nats.Name("tandem"),
		nats.RetryOnFailedConnect(true),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250*time.Millisecond),
		nats.ReconnectJitter(100*time.Millisecond, time.Second),
		nats.Timeout(2*time.Second),
		nats.PingInterval(10*time.Second),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			log.Warn("bus: disconnected from NATS; reconnecting", zap.Error(err))
		}),
		nats.ReconnectHandler(func(c *nats.Conn) {
			log.Info("bus: reconnected to NATS", zap.String("server", c.ConnectedUrlRedacted()))
		}),
		nats.ErrorHandler(func(_ *nats.Conn, s *nats.Subscription, err error) {
			subject := ""
			if s != nil {
				subject = s.Subject
			}
			log.Warn("bus: NATS error (messages may be lost)", zap.String("subject", subject), zap.Error(err))
		}),
	)
	if err != nil {
		return nil, fmt.Errorf("bus: nats %s: %w", url, err)
	}
	return &Bus{nc: nc, prefix: prefix, log: log}, nil
}

func (b *Bus) subject(topic string) string { return b.prefix + "." + topic }

// Publish queues data for the server; it does not wait for it.
func (b *Bus) Publish(topic string, data []byte) error {
	if err := b.nc.Publish(b.subject(topic), data); err != nil {
		return fmt.Errorf("bus: publish %s: %w", topic, err)
	}
	return nil
}

// Subscribe delivers topic's messages to handle on the subscription's own
// goroutine, in order.
func (b *Bus) Subscribe(topic string, handle func([]byte)) (func(), error) {
	s, err := b.nc.Subscribe(b.subject(topic), func(m *nats.Msg) { handle(m.Data) })
	if err != nil {
		return nil, fmt.Errorf("bus: subscribe %s: %w", topic, err)
	}
	if err := s.SetPendingLimits(pendingMsgs, pendingBytes); err != nil {
		return nil, errors.Join(fmt.Errorf("bus: subscribe %s: %w", topic, err), s.Unsubscribe())
	}
	// The server has the subscription once a flush returns, so what any
	// process publishes from then on reaches it. Disconnected, the client
	// subscribes again on reconnecting: nothing to wait for.
	if b.nc.IsConnected() {
		_ = b.nc.FlushTimeout(2 * time.Second)
	}
	return func() { _ = s.Unsubscribe() }, nil
}

// Flush waits until the server has every message published so far, at most
// timeout; a revocation uses it so that the other processes have it before
// the client hears the logout succeeded.
func (b *Bus) Flush(timeout time.Duration) error { return b.nc.FlushTimeout(timeout) }

// Connected reports whether the connection is up (for /readyz-like checks).
func (b *Bus) Connected() bool { return b.nc.IsConnected() }

// Close drains the subscriptions and closes the connection.
func (b *Bus) Close() error {
	if err := b.nc.Drain(); err != nil {
		b.nc.Close()
		return err
	}
	return nil
}
