// This file is the live stream's hub: the core.Live listener that
// publishes each reader's event on the bus, the bus subscription that fans
// events out to this process's open streams, and the caps. A resume is
// served from the durable change feed (stream_feed.go), not from memory. How an event is encoded on the bus is
// stream_codec.go's; how a stream is written to its connection is
// stream.go's; the token rechecks that end a stream are stream_recheck.go's;
// how a stream follows the change feed is stream_feed.go's.

package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/fx"
	"go.uber.org/zap"

	"tandem/core"
	"tandem/modules/accounts"
	"tandem/modules/changes"
)

// StreamConfig sizes the live partner streams of one process.
type StreamConfig struct {
	Heartbeat time.Duration // a comment line this often keeps proxies and NATs from closing an idle stream
	PerUser   int           // open streams per user; a new one beyond ends the oldest
	Max       int           // open streams in this process; beyond, 503
	// Recheck is how often every open stream's token is looked up in the
	// store again (TANDEM_STREAM_RECHECK): a revocation travels on the bus
	// once, at most once, and a stream must not outlive a lost one.
	Recheck time.Duration
}

// DefaultStreamConfig: 25 s heartbeats, tokens rechecked every 30 s.
var DefaultStreamConfig = StreamConfig{Heartbeat: 25 * time.Second, PerUser: 8, Max: 20000, Recheck: 30 * time.Second}

// streamRetryAfter is what a stream refused for the process's cap is told
// to wait (another process may have room sooner: a balancer retries there).
const streamRetryAfter = 5 * time.Second

// recheckTimeout bounds one token's lookup; a store that does not answer
// ends the round (the next one tries again), never a stream.
const recheckTimeout = 5 * time.Second

// sendBuffer is how many events a stream may lag behind before it is ended
// (the client resumes from the feed with Last-Event-ID instead of holding
// memory here).
const sendBuffer = 64

// stream is one open GET .../stream.
type stream struct {
	user, token string
	events      chan liveEvent
	done        chan struct{}
	once        sync.Once
	reason      string // why it ended, written as the last event
	// checked is the hub's gap epoch when the token was last found live:
	// behind the hub's, no event goes out before a lookup (confirmed).
	// Only the stream's own writer reads and writes it after attach.
	checked uint64
	// after is the Seq of the last change of the user's feed written (or
	// known to the client), at the time of that change or of the read that
	// found nothing after it: the cursor every event goes out with
	// (stream_feed.go). Only the stream's own writer touches them after open.
	after int64
	at    time.Time
}

// catchUp, on a stream's channel, is the bus's word that events may have
// been lost (a gap): the stream reads the feed at once, where every change
// is, rather than waiting for the next event. Kept in line with the events
// so that none heard after the gap goes before what it missed.
var catchUp = liveEvent{}

func (s *stream) end(reason string) {
	s.once.Do(func() { s.reason = reason; close(s.done) })
}

type userStreams struct {
	open []*stream // oldest first
}

// Streams is the live partner stream: the route, the core.Live listener
// that renders each reader's record and publishes it on the bus, and the
// bus subscription that fans events out to this process's open streams.
type Streams struct {
	cfg   StreamConfig
	bus   core.Broadcast
	ids   core.IDs
	clock core.Clock // a token's expiry is read against it
	// store is read for the rechecks: the database itself, not the token
	// cache, whose entries may be up to its ttl stale by design, which is
	// just what a recheck after a bus gap must not trust.
	store accounts.Repository
	// feed is the durable change feed the streams follow (stream_feed.go).
	feed    *changes.Service
	log     *zap.Logger
	write   time.Duration // each write's deadline (TANDEM_WRITE_TIMEOUT)
	gauge   prometheus.Gauge
	dropped prometheus.Counter
	gaps    prometheus.Counter
	recheck chan struct{}               // a token recheck is wanted now (a bus gap); cap 1
	evict   func(tokenHashes ...string) // ForgetWith's
	// epoch counts the bus gaps: a stream opened, or last confirmed, in an
	// earlier one looks its token up before its next event (confirmed).
	epoch atomic.Uint64

	mu      sync.Mutex
	users   map[string]*userStreams // users with a stream open here
	byToken map[string]map[*stream]struct{}
	total   int
	closed  bool
}

// NewStreams subscribes to the bus for the app's lifetime.
func NewStreams(lc fx.Lifecycle, cfg Config, bus core.Broadcast, ids core.IDs, clock core.Clock, store accounts.Repository,
	feed *changes.Service, log *zap.Logger, m *Metrics) (*Streams, error) {
	if cfg.Stream.Recheck <= 0 {
		return nil, fmt.Errorf("stream: recheck interval %v must be positive", cfg.Stream.Recheck)
	}
	if nofile, err := FileLimit(); err != nil {
		log.Warn("live: streams not bounded by the file descriptor limit", zap.Error(err))
	} else if budget := StreamBudget(nofile, cfg.Stream.Max); budget < cfg.Stream.Max {
		log.Warn("live: fewer streams than configured, for the file descriptor limit",
			zap.Int("streams", budget), zap.Int("configured", cfg.Stream.Max), zap.Uint64("file_limit", nofile))
		cfg.Stream.Max = budget
	}
	h := &Streams{cfg: cfg.Stream, bus: bus, ids: ids, clock: clock, store: store, feed: feed, log: log, write: cfg.WriteTimeout,
		users: map[string]*userStreams{}, byToken: map[string]map[*stream]struct{}{}, recheck: make(chan struct{}, 1),
		gauge: prometheus.NewGauge(prometheus.GaugeOpts{Name: "tandem_streams_open", Help: "Open live streams."}),
		dropped: prometheus.NewCounter(prometheus.CounterOpts{Name: "tandem_stream_lagged_total",
			Help: "Live streams ended because their client read too slowly."}),
		gaps: prometheus.NewCounter(prometheus.CounterOpts{Name: "tandem_stream_gaps_total",
			Help: "Bus gaps (a reconnection, a dropped message) after which every open stream caught up from the change feed."}),
	}
	m.MustRegister(h.gauge, h.dropped, h.gaps)
	stop, err := bus.Subscribe(core.TopicLive, h.receive)
	if err != nil {
		return nil, err
	}
	stopGaps := bus.OnGap(h.gap)
	stopLost := bus.OnDisconnect(h.lost)
	ctx, cancel := context.WithCancel(context.Background())
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error { go h.rechecks(ctx); return nil },
		OnStop: func(context.Context) error {
			cancel()
			stopGaps()
			stopLost()
			stop()
			h.Close()
			return nil
		},
	})
	return h, nil
}

// Listener publishes each core.Live to its readers, one bus message each.
// It runs after the write committed; a failure is logged by the bus.
func (h *Streams) Listener() core.Listener {
	return core.Listener{Name: "live stream", Handle: func(ctx context.Context, e core.Event) error {
		live, ok := e.(core.Live)
		if !ok {
			return nil
		}
		return h.publish(ctx, live)
	}}
}

func (h *Streams) publish(ctx context.Context, live core.Live) error {
	for user, rec := range live.For {
		view, err := renderLive(rec)
		if err != nil {
			return err
		}
		data, err := json.Marshal(view)
		if err != nil {
			return err
		}
		// the bus message's own id is kept for processes of the last release
		// in a rolling deploy; a stream writes the feed's cursor instead
		msg := encodeLive(liveEvent{ID: h.ids.New(), User: user, Type: live.Type, Data: data})
		_ = h.bus.Publish(ctx, core.TopicLive, msg) // logged and counted by the bus
	}
	return nil
}

// receive hands an event to its reader's streams open here.
func (h *Streams) receive(_ context.Context, data []byte) {
	e, ok := decodeLive(data)
	if !ok {
		h.log.Warn("live: malformed bus message dropped")
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if u := h.users[e.User]; u != nil {
		for _, s := range u.open {
			h.send(s, e)
		}
	}
}

// EndSessions ends the streams opened with these token hashes (revoked).
func (h *Streams) EndSessions(tokenHashes ...string) { h.endTokens("revoked", tokenHashes...) }

func (h *Streams) endTokens(reason string, tokenHashes ...string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, t := range tokenHashes {
		for s := range h.byToken[t] {
			s.end(reason)
		}
	}
}

// ForgetWith sets what a recheck tells of a token it found revoked before
// ending its streams: the process's token cache, which may still hold it
// when the bus lost the revocation. Call before the app starts.
func (h *Streams) ForgetWith(evict func(tokenHashes ...string)) { h.evict = evict }

// gap is the bus's word that this process may have missed messages: live
// events, so every open stream catches up from the feed, which holds every
// change the lost events announced; and revocations, so every token is
// looked up again at once. Called on the bus's goroutine: nothing here
// waits for the store.
func (h *Streams) gap() {
	h.epoch.Add(1)
	h.gaps.Inc()
	h.mu.Lock()
	for _, u := range h.users {
		for _, s := range u.open {
			h.send(s, catchUp)
		}
	}
	h.mu.Unlock()
	select {
	case h.recheck <- struct{}{}:
	default: // one is already due
	}
}

// lost is the bus's word that it lost the broker: from now on a revocation
// may go unheard, so every stream looks its token up again before its next
// event (confirmed); the gap that follows the reconnection catches them up.
func (h *Streams) lost() { h.epoch.Add(1) }

// send queues e on s; a stream too far behind is ended rather than waited
// for. Caller holds h.mu.
func (h *Streams) send(s *stream, e liveEvent) {
	select {
	case s.events <- e:
	default:
		h.dropped.Inc()
		s.end("lagging")
	}
}

// Full says whether the process holds as many streams as it may, and how
// many that is.
func (h *Streams) Full() (bool, int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.total >= h.cfg.Max, h.cfg.Max
}

// Close ends every stream and refuses new ones (the server is stopping:
// fasthttp waits for open responses, so streams must finish first).
func (h *Streams) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for _, u := range h.users {
		for _, s := range u.open {
			s.end("shutdown")
		}
	}
}

// attach registers a stream of user opened with token.
func (h *Streams) attach(user, token string) (*stream, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || h.total >= h.cfg.Max {
		e := core.Unavailable("unavailable", "httpapi.tooManyOpenStreamsRetry", "too many open streams; retry later")
		e.RetryAfter = streamRetryAfter
		return nil, e
	}
	u := h.users[user]
	if u == nil {
		u = &userStreams{}
		h.users[user] = u
	}
	if len(u.open) >= h.cfg.PerUser {
		u.open[0].end("replaced")
	}
	s := &stream{user: user, token: token, events: make(chan liveEvent, sendBuffer), done: make(chan struct{}),
		checked: h.epoch.Load()}
	u.open = append(u.open, s)
	if h.byToken[token] == nil {
		h.byToken[token] = map[*stream]struct{}{}
	}
	h.byToken[token][s] = struct{}{}
	h.total++
	h.gauge.Inc()
	return s, nil
}

func (h *Streams) detach(s *stream) {
	h.mu.Lock()
	defer h.mu.Unlock()
	u := h.users[s.user]
	for i, o := range u.open {
		if o == s {
			u.open = append(u.open[:i], u.open[i+1:]...)
			break
		}
	}
	if len(u.open) == 0 {
		delete(h.users, s.user)
	}
	delete(h.byToken[s.token], s)
	if len(h.byToken[s.token]) == 0 {
		delete(h.byToken, s.token)
	}
	h.total--
	h.gauge.Dec()
}
