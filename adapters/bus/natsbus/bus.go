// Package natsbus is the Broadcast over NATS (TANDEM_BUS=nats://HOST:PORT):
// core NATS publish/subscribe, at most once, shared by every process that
// connects to the same server with the same subject prefix.
//
// Every message is signed: anyone who can reach the NATS server could
// otherwise put a forged event in a user's live stream or a revocation on
// the bus. A message on the wire is HMAC-SHA256(secret, subject NUL data)
// followed by data; what arrives without the right MAC is dropped and
// reported (Config.Rejected), never handed to a subscriber.
//
// A message may carry headers (old processes ignore them; messages without
// them are still heard): Tandem-Sent, when it was published (the receiver's
// lag, Config.Received), and the W3C traceparent/tracestate of the span that
// published it, so the receiving process's work joins the trace. They are
// signed too (Tandem-Meta-Mac, bound to the message's own MAC): a forged
// header is ignored, the message still heard.
package natsbus

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
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

// macSize is the length of the signature in front of each message.
const macSize = sha256.Size

// Config is where to connect and how messages are signed.
type Config struct {
	URL    string // nats://HOST:PORT or tls://...
	Prefix string // subjects are "<prefix>.<topic>"; "" is "tandem"
	// Secret keys the HMAC every message carries; the processes of one
	// deployment share it. Required: this bus never runs unsigned.
	Secret []byte
	// Rejected, if set, is told of each message dropped because its
	// signature was missing or wrong (on the subscription's goroutine).
	Rejected func(topic string)
	// Received, if set, is told how long each message that said when it was
	// sent took to arrive (clocks of two machines: a lag, not a precise
	// figure), on the subscription's goroutine.
	Received func(topic string, lag time.Duration)
}

// The headers of a message (see the package comment).
const (
	headerSent    = "Tandem-Sent"     // unix milliseconds
	headerMetaMAC = "Tandem-Meta-Mac" // hex HMAC of the headers, bound to the message's MAC
)

// traceContext is the W3C propagation of traceparent and tracestate.
var traceContext = propagation.TraceContext{}

// Bus publishes on "<prefix>.<topic>". The connection reconnects by itself
// forever; while it is down, publishes wait in the client's reconnect buffer
// (8 MiB) and an error is returned only once that is full.
type Bus struct {
	nc       *nats.Conn
	prefix   string
	log      *zap.Logger
	macs     sync.Pool // of hash.Hash keyed with the secret: one per message would allocate its pads again
	rejected func(topic string)
	received func(topic string, lag time.Duration)

	subsMu sync.Mutex
	subs   map[*nats.Subscription]struct{}

	gapMu sync.Mutex
	gaps  map[*func()]struct{} // OnGap's handlers
}

// Connect dials cfg.URL. A server that is not up yet is not an error: the
// client keeps trying in the background, so a NATS outage never stops a
// start or fails a request.
func Connect(cfg Config, log *zap.Logger) (*Bus, error) {
	if len(cfg.Secret) == 0 {
		return nil, errors.New("bus: nats needs a secret to sign its messages")
	}
	prefix, url := cfg.Prefix, cfg.URL
	if prefix == "" {
		prefix = "tandem"
	}
	secret := append([]byte(nil), cfg.Secret...)
	b := &Bus{prefix: prefix, log: log, rejected: cfg.Rejected, received: cfg.Received, gaps: map[*func()]struct{}{},
		subs: map[*nats.Subscription]struct{}{}}
	b.macs.New = func() any { return hmac.New(sha256.New, secret) }
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
			b.reconnected(c)
		}),
		// a first connection made after a failed start: until then nothing
		// published elsewhere reached this process
		nats.ConnectHandler(func(c *nats.Conn) { b.reconnected(c) }),
		nats.ErrorHandler(func(_ *nats.Conn, s *nats.Subscription, err error) {
			subject := ""
			if s != nil {
				subject = s.Subject
			}
			log.Warn("bus: NATS error (messages may be lost)", zap.String("subject", subject), zap.Error(err))
			if errors.Is(err, nats.ErrSlowConsumer) {
				b.gapped() // the client dropped messages for this subscription
			}
		}),
	)
	if err != nil {
		return nil, fmt.Errorf("bus: nats %s: %w", url, err)
	}
	b.nc = nc
	return b, nil
}

func (b *Bus) subject(topic string) string { return b.prefix + "." + topic }

// sign appends the MAC of data on subject to dst. The subject is signed
// too, so a message cannot be replayed on another topic or deployment.
func (b *Bus) sign(dst []byte, subject string, data []byte) []byte {
	h := b.macs.Get().(hash.Hash)
	h.Reset()
	h.Write([]byte(subject))
	h.Write([]byte{0})
	h.Write(data)
	dst = h.Sum(dst)
	b.macs.Put(h)
	return dst
}

// open returns the data of a signed message, or false when its MAC is
// missing or wrong (compared in constant time).
func (b *Bus) open(subject string, msg []byte) ([]byte, bool) {
	if len(msg) < macSize {
		return nil, false
	}
	var want [macSize]byte
	return msg[macSize:], hmac.Equal(msg[:macSize], b.sign(want[:0], subject, msg[macSize:]))
}

// Publish signs data and queues it for the server; it does not wait for it.
// The headers say when, and carry ctx's span context when it has one.
func (b *Bus) Publish(ctx context.Context, topic string, data []byte) error {
	subject := b.subject(topic)
	msg := b.sign(make([]byte, 0, macSize+len(data)), subject, data)
	h := nats.Header{}
	hc := propagation.HeaderCarrier(h) // canonical keys, as the receiver reads them
	hc.Set(headerSent, strconv.FormatInt(time.Now().UnixMilli(), 10))
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		traceContext.Inject(ctx, hc)
	}
	hc.Set(headerMetaMAC, b.signMeta(subject, msg[:macSize], h))
	msg = append(msg, data...)
	err := b.nc.PublishMsg(&nats.Msg{Subject: subject, Header: h, Data: msg})
	if errors.Is(err, nats.ErrHeadersNotSupported) {
		// never connected yet, so the server's support is unknown: the
		// message goes bare into the reconnect buffer, as it always did
		err = b.nc.Publish(subject, msg)
	}
	if err != nil {
		return fmt.Errorf("bus: publish %s: %w", topic, err)
	}
	return nil
}

// signMeta is the MAC of a message's headers: its subject, its own MAC (so
// headers cannot be moved to another message) and each header's value.
func (b *Bus) signMeta(subject string, msgMAC []byte, h nats.Header) string {
	m := b.macs.Get().(hash.Hash)
	m.Reset()
	m.Write([]byte("meta\x00" + subject + "\x00"))
	m.Write(msgMAC)
	for _, k := range []string{headerSent, "traceparent", "tracestate"} {
		m.Write([]byte("\x00" + propagation.HeaderCarrier(h).Get(k)))
	}
	var sum [macSize]byte
	out := hex.EncodeToString(m.Sum(sum[:0]))
	b.macs.Put(m)
	return out
}

// meta reads a correctly signed message's headers: the context carrying
// the publisher's span (context.Background() without one), and the lag.
// Headers missing (an older process) or wrongly signed give neither.
func (b *Bus) meta(m *nats.Msg) (context.Context, time.Duration, bool) {
	ctx := context.Background()
	if m.Header == nil {
		return ctx, 0, false
	}
	got, err := hex.DecodeString(propagation.HeaderCarrier(m.Header).Get(headerMetaMAC))
	if err != nil || !hmac.Equal(got, mustHex(b.signMeta(m.Subject, m.Data[:macSize], m.Header))) {
		return ctx, 0, false
	}
	if propagation.HeaderCarrier(m.Header).Get("traceparent") != "" {
		ctx = traceContext.Extract(ctx, propagation.HeaderCarrier(m.Header))
	}
	sent, err := strconv.ParseInt(propagation.HeaderCarrier(m.Header).Get(headerSent), 10, 64)
	if err != nil {
		return ctx, 0, false
	}
	return ctx, max(time.Since(time.UnixMilli(sent)), 0), true
}

func mustHex(s string) []byte { b, _ := hex.DecodeString(s); return b }

// Subscribe delivers topic's correctly signed messages to handle on the
// subscription's own goroutine, in order; the others are dropped.
func (b *Bus) Subscribe(topic string, handle func(context.Context, []byte)) (func(), error) {
	s, err := b.nc.Subscribe(b.subject(topic), func(m *nats.Msg) {
		data, ok := b.open(m.Subject, m.Data)
		if !ok {
			b.reject(topic)
			return
		}
		ctx, lag, timed := b.meta(m)
		if timed && b.received != nil {
			b.received(topic, lag)
		}
		handle(ctx, data)
	})
	if err != nil {
		return nil, fmt.Errorf("bus: subscribe %s: %w", topic, err)
	}
	if err := s.SetPendingLimits(pendingMsgs, pendingBytes); err != nil {
		return nil, errors.Join(fmt.Errorf("bus: subscribe %s: %w", topic, err), s.Unsubscribe())
	}
	b.subsMu.Lock()
	b.subs[s] = struct{}{}
	b.subsMu.Unlock()
	// The server has the subscription once a flush returns, so what any
	// process publishes from then on reaches it. Disconnected, the client
	// subscribes again on reconnecting: nothing to wait for.
	if b.nc.IsConnected() {
		_ = b.nc.FlushTimeout(2 * time.Second)
	}
	return func() {
		b.subsMu.Lock()
		delete(b.subs, s)
		b.subsMu.Unlock()
		_ = s.Unsubscribe()
	}, nil
}

// Dropped is how many messages this process's subscriptions have dropped
// so far for falling behind (slow consumers), those still subscribed.
func (b *Bus) Dropped() int {
	b.subsMu.Lock()
	defer b.subsMu.Unlock()
	n := 0
	for s := range b.subs {
		if d, err := s.Dropped(); err == nil {
			n += d
		}
	}
	return n
}

// reject reports a message dropped for its signature. Not logged one by
// one: a flood of forgeries must not become a flood of log lines.
func (b *Bus) reject(topic string) {
	if b.rejected != nil {
		b.rejected(topic)
	}
}

// OnGap calls gap after every reconnection and slow-consumer drop, on a
// goroutine of the client's (or one of its own): gap must not block.
func (b *Bus) OnGap(gap func()) func() {
	key := &gap
	b.gapMu.Lock()
	b.gaps[key] = struct{}{}
	b.gapMu.Unlock()
	return func() {
		b.gapMu.Lock()
		delete(b.gaps, key)
		b.gapMu.Unlock()
	}
}

// reconnected reports the gap once the server surely has this process's
// subscriptions again: the client resent them before calling back, and a
// flush's round trip means the server has read them. From then on every
// message published anywhere reaches them, so a subscriber that re-reads
// the store now misses nothing. Off the client's callback goroutine, which
// a flush must not hold up.
func (b *Bus) reconnected(c *nats.Conn) {
	go func() {
		if err := c.FlushTimeout(2 * time.Second); err != nil {
			b.log.Warn("bus: subscriptions not confirmed after reconnecting", zap.Error(err))
		}
		b.gapped()
	}()
}

func (b *Bus) gapped() {
	b.gapMu.Lock()
	gaps := make([]func(), 0, len(b.gaps))
	for g := range b.gaps {
		gaps = append(gaps, *g)
	}
	b.gapMu.Unlock()
	for _, g := range gaps {
		g()
	}
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
