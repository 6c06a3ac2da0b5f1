package httpapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/fx"
	"go.uber.org/zap"

	"tandem/core"
	"tandem/modules/accounts"
)

// StreamConfig sizes the live partner streams of one process.
type StreamConfig struct {
	Heartbeat time.Duration // a comment line this often keeps proxies and NATs from closing an idle stream
	ReplayMax int           // events kept per user for Last-Event-ID
	ReplayAge time.Duration // and for at most this long
	PerUser   int           // open streams per user; a new one beyond ends the oldest
	Max       int           // open streams in this process; beyond, 503
	// ReplayBytes bounds the replay buffers of users with no open stream
	// here; past it their events are not kept (a resume gets a reset).
	ReplayBytes int
	// Recheck is how often every open stream's token is looked up in the
	// store again (TANDEM_STREAM_RECHECK): a revocation travels on the bus
	// once, at most once, and a stream must not outlive a lost one.
	Recheck time.Duration
}

// DefaultStreamConfig: 25 s heartbeats, the last 100 events or 10 minutes,
// tokens rechecked every 30 s.
var DefaultStreamConfig = StreamConfig{Heartbeat: 25 * time.Second, ReplayMax: 100, ReplayAge: 10 * time.Minute,
	PerUser: 8, Max: 20000, ReplayBytes: 64 << 20, Recheck: 30 * time.Second}

// recheckTimeout bounds one token's lookup; a store that does not answer
// ends the round (the next one tries again), never a stream.
const recheckTimeout = 5 * time.Second

// sendBuffer is how many events a stream may lag behind before it is ended
// (the client resumes with Last-Event-ID instead of holding memory here).
const sendBuffer = 64

// liveEvent is one event for one reader, as it travels on core.TopicLive:
// every process hears it, keeps it for resumes and writes it to the
// reader's streams it serves.
type liveEvent struct {
	ID   string          `json:"id"`
	User string          `json:"user"`
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

type replayed struct {
	liveEvent
	at time.Time
}

// stream is one open GET .../stream.
type stream struct {
	user, token string
	events      chan liveEvent
	done        chan struct{}
	once        sync.Once
	reason      string // why it ended, written as the last event
}

// resetEvent, on a stream's channel, is written as `event: reset` (no id):
// events may have been missed, the app refetches. Kept in line with the
// events so that none heard after the gap goes before it.
var resetEvent = liveEvent{Type: "reset"}

func (s *stream) end(reason string) {
	s.once.Do(func() { s.reason = reason; close(s.done) })
}

type userStreams struct {
	open   []*stream // oldest first
	replay []replayed
	bytes  int
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
	store   accounts.Repository
	log     *zap.Logger
	write   time.Duration // each write's deadline (TANDEM_WRITE_TIMEOUT)
	gauge   prometheus.Gauge
	dropped prometheus.Counter
	resets  prometheus.Counter
	recheck chan struct{}               // a token recheck is wanted now (a bus gap); cap 1
	evict   func(tokenHashes ...string) // ForgetWith's

	mu       sync.Mutex
	users    map[string]*userStreams
	byToken  map[string]map[*stream]struct{}
	total    int
	buffered int // bytes replayable for users with no stream here
	closed   bool
}

// NewStreams subscribes to the bus for the app's lifetime.
func NewStreams(lc fx.Lifecycle, cfg Config, bus core.Broadcast, ids core.IDs, clock core.Clock, store accounts.Repository,
	log *zap.Logger, m *Metrics) (*Streams, error) {
	if cfg.Stream.Recheck <= 0 {
		return nil, fmt.Errorf("stream: recheck interval %v must be positive", cfg.Stream.Recheck)
	}
	h := &Streams{cfg: cfg.Stream, bus: bus, ids: ids, clock: clock, store: store, log: log, write: cfg.WriteTimeout,
		users: map[string]*userStreams{}, byToken: map[string]map[*stream]struct{}{}, recheck: make(chan struct{}, 1),
		gauge: prometheus.NewGauge(prometheus.GaugeOpts{Name: "tandem_streams_open", Help: "Open live streams."}),
		dropped: prometheus.NewCounter(prometheus.CounterOpts{Name: "tandem_stream_lagged_total",
			Help: "Live streams ended because their client read too slowly."}),
		resets: prometheus.NewCounter(prometheus.CounterOpts{Name: "tandem_stream_gaps_total",
			Help: "Bus gaps (a reconnection, a dropped message) after which every open stream was sent event: reset."}),
	}
	m.MustRegister(h.gauge, h.dropped, h.resets)
	stop, err := bus.Subscribe(core.TopicLive, h.receive)
	if err != nil {
		return nil, err
	}
	stopGaps := bus.OnGap(h.gap)
	ctx, cancel := context.WithCancel(context.Background())
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error { go h.sweep(ctx); go h.rechecks(ctx); return nil },
		OnStop:  func(context.Context) error { cancel(); stopGaps(); stop(); h.Close(); return nil },
	})
	return h, nil
}

func (h *Streams) Register(r fiber.Router) {
	r.Get("/api/users/user/:userId/stream", requireSelf, h.open)
}

// Listener publishes each core.Live to its readers, one bus message each.
// It runs after the write committed; a failure is logged by the bus.
func (h *Streams) Listener() core.Listener {
	return core.Listener{Name: "live stream", Handle: func(_ context.Context, e core.Event) error {
		live, ok := e.(core.Live)
		if !ok {
			return nil
		}
		return h.publish(live)
	}}
}

func (h *Streams) publish(live core.Live) error {
	for user, rec := range live.For {
		view, err := renderLive(rec)
		if err != nil {
			return err
		}
		data, err := json.Marshal(view)
		if err != nil {
			return err
		}
		msg := encodeLive(liveEvent{ID: h.ids.New(), User: user, Type: live.Type, Data: data})
		_ = h.bus.Publish(core.TopicLive, msg) // logged and counted by the bus
	}
	return nil
}

// receive keeps an event for resumes and hands it to the reader's streams.
func (h *Streams) receive(data []byte) {
	e, ok := decodeLive(data)
	if !ok {
		h.log.Warn("live: malformed bus message dropped")
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	u := h.users[e.User]
	if u == nil {
		u = &userStreams{}
		h.users[e.User] = u
	}
	if len(u.open) > 0 || h.buffered+len(e.Data) <= h.cfg.ReplayBytes {
		h.keep(u, replayed{liveEvent: e, at: time.Now()})
	}
	for _, s := range u.open {
		h.send(s, e)
	}
}

// encodeLive writes a bus message as json.Marshal would, but takes its
// data as it is: it comes straight from json.Marshal, and marshaling it
// again as a RawMessage checked and compacted it a second time (3% of an
// event create).
func encodeLive(e liveEvent) []byte {
	b := make([]byte, 0, len(e.ID)+len(e.User)+len(e.Type)+len(e.Data)+40)
	b = append(b, `{"id":`...)
	b = appendJSONString(b, e.ID)
	b = append(b, `,"user":`...)
	b = appendJSONString(b, e.User)
	b = append(b, `,"type":`...)
	b = appendJSONString(b, e.Type)
	b = append(b, `,"data":`...)
	b = append(b, e.Data...)
	return append(b, '}')
}

// appendJSONString appends s as a JSON string. Ids and types are plain
// ASCII, which goes as it is; anything else takes encoding/json's way.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c >= 0x80 {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// decodeLive reads a bus message; its id and type go into SSE field lines
// and its data onto one data line, so none may hold a line break. A message
// as encodeLive writes it is split without decoding its data, which is
// only validated (json.Unmarshal, scanning the data twice, was 7% of an
// event create's CPU); any other is decoded in full, with the same result.
func decodeLive(data []byte) (liveEvent, bool) {
	e, ok := splitLive(data)
	if !ok && json.Unmarshal(data, &e) != nil {
		return liveEvent{}, false
	}
	return sseSafe(e)
}

// sseSafe checks a decoded event's fields for SSE lines. Its data is valid
// JSON (json.Valid or Unmarshal checked it), where a line break can only be
// white space: compacting removes it. Most data (json.Marshal's) has none,
// and is kept as it is.
func sseSafe(e liveEvent) (liveEvent, bool) {
	if !fieldSafe(e.ID) || !fieldSafe(e.Type) || e.User == "" {
		return liveEvent{}, false
	}
	if bytes.ContainsAny(e.Data, "\r\n") {
		var compact bytes.Buffer
		if json.Compact(&compact, e.Data) != nil {
			return liveEvent{}, false
		}
		e.Data = compact.Bytes()
	}
	return e, true
}

// splitLive reads {"id":…,"user":…,"type":…,"data":…} in that order with
// plain strings (no escapes, ASCII), and data a valid JSON value with
// nothing around it: encodeLive's layout. false means "decode it in full".
func splitLive(b []byte) (e liveEvent, ok bool) {
	fields := []struct {
		key string
		to  *string
	}{{`{"id":`, &e.ID}, {`,"user":`, &e.User}, {`,"type":`, &e.Type}}
	for _, f := range fields {
		if b, ok = bytes.CutPrefix(b, []byte(f.key)); !ok {
			return liveEvent{}, false
		}
		if *f.to, b, ok = plainJSONString(b); !ok {
			return liveEvent{}, false
		}
	}
	if b, ok = bytes.CutPrefix(b, []byte(`,"data":`)); !ok || len(b) < 2 || b[len(b)-1] != '}' {
		return liveEvent{}, false
	}
	e.Data = b[:len(b)-1]
	if isJSONSpace(e.Data[0]) || isJSONSpace(e.Data[len(e.Data)-1]) || !json.Valid(e.Data) {
		return liveEvent{}, false
	}
	e.Data = bytes.Clone(e.Data) // kept for resumes: not the bus's buffer
	return e, true
}

// plainJSONString reads a JSON string at the start of b that needs no
// unescaping: printable ASCII without a backslash.
func plainJSONString(b []byte) (string, []byte, bool) {
	if len(b) == 0 || b[0] != '"' {
		return "", nil, false
	}
	for i := 1; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return string(b[1:i]), b[i+1:], true
		case c < 0x20 || c == '\\' || c >= 0x80:
			return "", nil, false
		}
	}
	return "", nil, false
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func fieldSafe(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_') {
			return false
		}
	}
	return s != "" && len(s) <= 64
}

// keep appends to u's replay buffer within its bounds. Caller holds h.mu.
func (h *Streams) keep(u *userStreams, r replayed) {
	u.replay = append(u.replay, r)
	h.account(u, len(r.Data))
	if over := len(u.replay) - h.cfg.ReplayMax; over > 0 {
		h.forget(u, over)
	}
}

// forget drops u's n oldest buffered events. Caller holds h.mu.
func (h *Streams) forget(u *userStreams, n int) {
	for _, r := range u.replay[:n] {
		h.account(u, -len(r.Data))
	}
	u.replay = append(u.replay[:0], u.replay[n:]...)
}

func (h *Streams) account(u *userStreams, n int) {
	u.bytes += n
	if len(u.open) == 0 {
		h.buffered += n
	}
}

// sweep drops expired events and forgotten users once a minute.
func (h *Streams) sweep(ctx context.Context) {
	core.Every(ctx, time.Minute, func() { h.expire(time.Now()) })
}

func (h *Streams) expire(now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for id, u := range h.users {
		n := 0
		for n < len(u.replay) && now.Sub(u.replay[n].at) > h.cfg.ReplayAge {
			n++
		}
		h.forget(u, n)
		if len(u.open) == 0 && len(u.replay) == 0 {
			delete(h.users, id)
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
// events, so every open stream is told to refetch and no resume is served
// from buffers with a hole in them; and revocations, so every token is
// looked up again at once. Called on the bus's goroutine: nothing here
// waits for the store.
func (h *Streams) gap() {
	h.resets.Inc()
	h.mu.Lock()
	for _, u := range h.users {
		h.forget(u, len(u.replay))
		for _, s := range u.open {
			h.send(s, resetEvent)
		}
	}
	h.mu.Unlock()
	select {
	case h.recheck <- struct{}{}:
	default: // one is already due
	}
}

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

// rechecks looks every open stream's token up again every Recheck, and at
// once after a bus gap, one lookup at a time (a single connection of the
// pool, however many streams are open).
func (h *Streams) rechecks(ctx context.Context) {
	t := time.NewTicker(h.cfg.Recheck)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-h.recheck:
		}
		h.recheckTokens(ctx)
	}
}

// recheckTokens ends the streams of every token no longer in the store
// (revoked; the bus message may have been lost) or expired by the clock.
// A store error stops the round: an outage must not end every stream.
func (h *Streams) recheckTokens(ctx context.Context) {
	h.mu.Lock()
	tokens := make([]string, 0, len(h.byToken))
	for t := range h.byToken {
		tokens = append(tokens, t)
	}
	h.mu.Unlock()
	for _, t := range tokens {
		lookup, cancel := context.WithTimeout(ctx, recheckTimeout)
		sess, err := h.store.Session(lookup, t)
		cancel()
		switch {
		case core.IsKind(err, core.KindNotFound):
			if h.evict != nil {
				h.evict(t)
			}
			h.endTokens("revoked", t)
		case err != nil:
			if ctx.Err() == nil {
				h.log.Warn("live: stream tokens not rechecked; next round in "+h.cfg.Recheck.String(), zap.Error(err))
			}
			return
		case !h.clock.Now().Before(sess.ExpiresAt):
			h.endTokens("expired", t)
		}
	}
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

// attach registers a stream and returns what it missed after lastID; reset
// is true when lastID is not among the kept events. Taking both under one
// lock means no event is lost or sent twice between the two.
func (h *Streams) attach(user, token, lastID string) (*stream, []liveEvent, bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || h.total >= h.cfg.Max {
		return nil, nil, false, core.Unavailable("unavailable", "too many open streams; retry later")
	}
	u := h.users[user]
	if u == nil {
		u = &userStreams{}
		h.users[user] = u
	}
	if len(u.open) >= h.cfg.PerUser {
		u.open[0].end("replaced")
	}
	backlog, reset := missed(u.replay, lastID)
	s := &stream{user: user, token: token, events: make(chan liveEvent, sendBuffer), done: make(chan struct{})}
	if len(u.open) == 0 {
		h.buffered -= u.bytes // a user with a stream here is kept whatever the budget
	}
	u.open = append(u.open, s)
	if h.byToken[token] == nil {
		h.byToken[token] = map[*stream]struct{}{}
	}
	h.byToken[token][s] = struct{}{}
	h.total++
	h.gauge.Inc()
	return s, backlog, reset, nil
}

// missed is what followed lastID in the buffer; reset when lastID is given
// but no longer kept (or never was).
func missed(buf []replayed, lastID string) ([]liveEvent, bool) {
	if lastID == "" {
		return nil, false
	}
	for i := range buf {
		if buf[i].ID == lastID {
			out := make([]liveEvent, 0, len(buf)-i-1)
			for _, r := range buf[i+1:] {
				out = append(out, r.liveEvent)
			}
			return out, false
		}
	}
	return nil, true
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
		h.buffered += u.bytes
	}
	delete(h.byToken[s.token], s)
	if len(h.byToken[s.token]) == 0 {
		delete(h.byToken, s.token)
	}
	h.total--
	h.gauge.Dec()
}

// open serves GET /api/users/user/{userId}/stream as Server-Sent Events.
func (h *Streams) open(c *fiber.Ctx) error {
	token, _ := bearerToken(c.Get(fiber.HeaderAuthorization))
	p, _ := core.PrincipalFrom(c.UserContext()) // requireSelf let only a caller through
	lastID := c.Get("Last-Event-ID")
	if len(lastID) > 64 {
		return core.Invalid("invalid_request", "Last-Event-ID is at most 64 characters")
	}
	s, backlog, reset, err := h.attach(c.Params("userId"), accounts.HashToken(token), lastID)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, "text/event-stream; charset=utf-8")
	c.Set("X-Accel-Buffering", "no") // nginx: pass each event on at once
	conn := c.Context().Conn()
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		defer h.detach(s)
		h.serve(&sseWriter{w: w, conn: conn, timeout: h.write}, s, backlog, reset, p.ExpiresAt)
	})
	return nil
}

// serve writes the stream until it ends, its token expires or the client is
// gone. The token was checked once, at open: without the timer a stream
// would go on carrying the partner's life long after its token died.
func (h *Streams) serve(w *sseWriter, s *stream, backlog []liveEvent, reset bool, expires time.Time) {
	w.raw(": connected\nretry: 3000\n\n")
	if reset {
		w.raw("event: reset\ndata: {}\n\n")
	}
	for _, e := range backlog {
		w.event(e)
	}
	heartbeat := time.NewTicker(h.cfg.Heartbeat)
	defer heartbeat.Stop()
	var expired <-chan time.Time // nil, never ready, for a principal without expiry
	if !expires.IsZero() {
		// the time left by the core clock, on a real timer (a clock has no timers)
		t := time.NewTimer(expires.Sub(h.clock.Now()))
		defer t.Stop()
		expired = t.C
	}
	for w.flush() == nil {
		select {
		case e := <-s.events:
			if e.ID == "" { // resetEvent: every event from the bus has an id
				w.raw("event: reset\ndata: {}\n\n")
				continue
			}
			w.event(e)
		case <-heartbeat.C:
			w.raw(": heartbeat\n\n")
		case <-expired:
			s.end("expired") // unless it already ended for another reason
			<-s.done
			w.raw("event: end\ndata: {\"reason\":" + strconv.Quote(s.reason) + "}\n\n")
			_ = w.flush()
			return
		case <-s.done:
			w.raw("event: end\ndata: {\"reason\":" + strconv.Quote(s.reason) + "}\n\n")
			_ = w.flush()
			return
		}
	}
}

// sseWriter writes the text/event-stream format. fasthttp sets one write
// deadline for a whole answer; a stream moves it forward at every flush.
type sseWriter struct {
	w       *bufio.Writer
	conn    net.Conn
	timeout time.Duration
}

func (w *sseWriter) raw(s string) { _, _ = w.w.WriteString(s) }

// event writes one event; its data is one line of JSON (encoding/json
// escapes every newline).
func (w *sseWriter) event(e liveEvent) {
	w.raw("id: " + e.ID + "\nevent: " + e.Type + "\ndata: ")
	_, _ = w.w.Write(e.Data)
	w.raw("\n\n")
}

func (w *sseWriter) flush() error {
	if w.timeout > 0 && w.conn != nil {
		_ = w.conn.SetWriteDeadline(time.Now().Add(w.timeout))
	}
	return w.w.Flush()
}
