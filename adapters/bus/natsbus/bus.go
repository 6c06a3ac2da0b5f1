// Package natsbus is the Broadcast over NATS (TANDEM_BUS=nats://HOST:PORT):
// core NATS publish/subscribe, at most once, shared by every process that
// connects to the same server with the same subject prefix.
//
// Every message is signed and stamped: anyone who can reach the NATS server
// could otherwise put a forged event in a user's live stream or a
// revocation on the bus, or publish again one they captured. A frame on the
// wire is
//
//	MAC | sent | id | data
//
// where sent is the publisher's clock in unix milliseconds (8 bytes, big
// endian), id 16 random bytes, and the MAC HMAC-SHA256(secret, "tandem-bus/2"
// NUL subject NUL sent id data). A subscription drops, and reports
// (Config.Rejected), what arrives without the right MAC, what was sent more
// than MaxAge ago or more than MaxSkew ahead of its clock, and an id it has
// heard already (seenIDs); nothing of it reaches a subscriber. Frames of the
// older format (no stamp) fail the MAC: processes of two versions do not
// hear each other.
//
// A message may carry headers: the W3C traceparent/tracestate of the span
// that published it, so the receiving process's work joins the trace. They
// are signed too (Tandem-Meta-Mac, bound to the message's own MAC): a forged
// header is ignored, the message still heard.
package natsbus

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
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

// A frame is MAC | stamp | data (see the package comment).
const (
	macSize    = sha256.Size
	stampSize  = 8 + idSize
	frameLabel = "tandem-bus/2\x00" // binds a MAC to this format: an older frame never passes for one
)

// Config is where to connect and how messages are signed.
type Config struct {
	URL    string // nats://HOST:PORT or tls://...
	Prefix string // subjects are "<prefix>.<topic>"; "" is "tandem"
	// Secret keys the HMAC every message carries; the processes of one
	// deployment share it. Required: this bus never runs unsigned.
	Secret []byte
	// Clock stamps what is published and judges the age of what arrives;
	// nil is the system clock.
	Clock core.Clock
	// SeenCap bounds the ids each subscription remembers against replays
	// (see seenIDs); 0 is DefaultSeenCap.
	SeenCap int
	// Rejected, if set, is told of each message dropped unheard, and why:
	// RejectSignature, RejectStale or RejectReplayed (on the subscription's
	// goroutine).
	Rejected func(topic, reason string)
	// Received, if set, is told how long each message took to arrive by its
	// stamp (clocks of two machines: a lag, not a precise figure), on the
	// subscription's goroutine.
	Received func(topic string, lag time.Duration)
}

// headerMetaMAC is the hex HMAC of a message's trace headers, bound to the
// message's MAC.
const headerMetaMAC = "Tandem-Meta-Mac"

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
	clock    core.Clock
	seenCap  int
	rejected func(topic, reason string)
	received func(topic string, lag time.Duration)

	subsMu sync.Mutex
	subs   map[*nats.Subscription]*seenIDs

	gapMu sync.Mutex
	gaps  map[*func()]struct{} // OnGap's handlers
	losts map[*func()]struct{} // OnDisconnect's
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
	clock := cfg.Clock
	if clock == nil {
		clock = core.SystemClock{}
	}
	b := &Bus{prefix: prefix, log: log, clock: clock, seenCap: cfg.SeenCap, rejected: cfg.Rejected, received: cfg.Received,
		gaps: map[*func()]struct{}{}, losts: map[*func()]struct{}{}, subs: map[*nats.Subscription]*seenIDs{}}
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
			b.lost()
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

// sign appends the MAC of body (stamp and data) on subject to dst. The
// subject is signed too, so a message cannot be replayed on another topic
// or deployment.
func (b *Bus) sign(dst []byte, subject string, body []byte) []byte {
	h := b.macs.Get().(hash.Hash)
	h.Reset()
	h.Write([]byte(frameLabel + subject + "\x00"))
	h.Write(body)
	dst = h.Sum(dst)
	b.macs.Put(h)
	return dst
}

// open returns the stamp and data of a signed frame, or false when it is
// short or its MAC is wrong (compared in constant time).
func (b *Bus) open(subject string, msg []byte) (stamp, []byte, bool) {
	if len(msg) < macSize+stampSize {
		return stamp{}, nil, false
	}
	var want [macSize]byte
	if !hmac.Equal(msg[:macSize], b.sign(want[:0], subject, msg[macSize:])) {
		return stamp{}, nil, false
	}
	st := stamp{sent: int64(binary.BigEndian.Uint64(msg[macSize:]))}
	copy(st.id[:], msg[macSize+8:macSize+stampSize])
	return st, msg[macSize+stampSize:], true
}

// Publish stamps and signs data and queues it for the server; it does not
// wait for it. The headers carry ctx's span context when it has one.
func (b *Bus) Publish(ctx context.Context, topic string, data []byte) error {
	subject := b.subject(topic)
	msg := make([]byte, macSize+stampSize, macSize+stampSize+len(data))
	binary.BigEndian.PutUint64(msg[macSize:], uint64(b.clock.Now().UnixMilli()))
	_, _ = rand.Read(msg[macSize+8 : macSize+stampSize]) // never fails (crypto/rand)
	msg = append(msg, data...)
	var mac [macSize]byte
	copy(msg, b.sign(mac[:0], subject, msg[macSize:]))
	var h nats.Header
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		h = nats.Header{}
		hc := propagation.HeaderCarrier(h) // canonical keys, as the receiver reads them
		traceContext.Inject(ctx, hc)
		hc.Set(headerMetaMAC, b.signMeta(subject, msg[:macSize], h))
	}
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
	for _, k := range []string{"traceparent", "tracestate"} {
		m.Write([]byte("\x00" + propagation.HeaderCarrier(h).Get(k)))
	}
	var sum [macSize]byte
	out := hex.EncodeToString(m.Sum(sum[:0]))
	b.macs.Put(m)
	return out
}

// traced is the context carrying the publisher's span of a correctly
// signed message, context.Background() when its headers are missing or
// wrongly signed.
func (b *Bus) traced(m *nats.Msg) context.Context {
	ctx := context.Background()
	if m.Header == nil {
		return ctx
	}
	got, err := hex.DecodeString(propagation.HeaderCarrier(m.Header).Get(headerMetaMAC))
	if err != nil || !hmac.Equal(got, mustHex(b.signMeta(m.Subject, m.Data[:macSize], m.Header))) {
		return ctx
	}
	return traceContext.Extract(ctx, propagation.HeaderCarrier(m.Header))
}

func mustHex(s string) []byte { b, _ := hex.DecodeString(s); return b }

// Subscribe delivers topic's correctly signed, fresh and new messages to
// handle on the subscription's own goroutine, in order; the others are
// dropped. Each subscription remembers the ids it heard on its own: two
// subscriptions to one topic both hear each message.
func (b *Bus) Subscribe(topic string, handle func(context.Context, []byte)) (func(), error) {
	seen := newSeenIDs(b.seenCap)
	s, err := b.nc.Subscribe(b.subject(topic), func(m *nats.Msg) {
		st, data, ok := b.open(m.Subject, m.Data)
		if !ok {
			b.reject(topic, RejectSignature)
			return
		}
		now := b.clock.Now()
		if why := seen.admit(now.UnixMilli(), st); why != "" {
			b.reject(topic, why)
			return
		}
		if b.received != nil {
			b.received(topic, max(now.Sub(time.UnixMilli(st.sent)), 0))
		}
		handle(b.traced(m), data)
	})
	if err != nil {
		return nil, fmt.Errorf("bus: subscribe %s: %w", topic, err)
	}
	if err := s.SetPendingLimits(pendingMsgs, pendingBytes); err != nil {
		return nil, errors.Join(fmt.Errorf("bus: subscribe %s: %w", topic, err), s.Unsubscribe())
	}
	b.subsMu.Lock()
	b.subs[s] = seen
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

// Remembered is how many message ids this process's subscriptions hold
// against replays, those still subscribed (each at most Config.SeenCap).
func (b *Bus) Remembered() int {
	b.subsMu.Lock()
	defer b.subsMu.Unlock()
	n := 0
	for _, seen := range b.subs {
		n += seen.len()
	}
	return n
}

// reject reports a message dropped unheard. Not logged one by one: a flood
// of forgeries or replays must not become a flood of log lines.
func (b *Bus) reject(topic, reason string) {
	if b.rejected != nil {
		b.rejected(topic, reason)
	}
}

// OnGap calls gap after every reconnection and slow-consumer drop, on a
// goroutine of the client's (or one of its own): gap must not block.
func (b *Bus) OnGap(gap func()) func() { return b.watch(b.gaps, gap) }

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

func (b *Bus) gapped() { b.call(b.gaps) }

func (b *Bus) lost() { b.call(b.losts) }

// OnDisconnect calls lost each time the client loses the server, on the
// client's callback goroutine, as the client reports the loss: at least a
// reconnection wait (250 ms) before anything received after reconnecting.
// lost must not block.
func (b *Bus) OnDisconnect(lost func()) func() { return b.watch(b.losts, lost) }

func (b *Bus) call(set map[*func()]struct{}) {
	b.gapMu.Lock()
	fs := make([]func(), 0, len(set))
	for f := range set {
		fs = append(fs, *f)
	}
	b.gapMu.Unlock()
	for _, f := range fs {
		f()
	}
}

func (b *Bus) watch(set map[*func()]struct{}, f func()) func() {
	key := &f
	b.gapMu.Lock()
	set[key] = struct{}{}
	b.gapMu.Unlock()
	return func() {
		b.gapMu.Lock()
		delete(set, key)
		b.gapMu.Unlock()
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
