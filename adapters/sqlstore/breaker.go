package sqlstore

import (
	"context"
	"database/sql"
	"sync/atomic"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"tandem/core"
)

// Breaker watches a MySQL server over a connection of its own, outside the
// pool the requests share, so a saturated pool is not taken for a dead
// server. After two probes in a row fail (refused, reset, or no answer in
// two seconds: a slow network with a few hundred milliseconds per round
// trip is not an outage) it opens: requests are refused at once with 503 instead of each
// waiting out the request timeout on a server that does not answer. The
// first probe that succeeds closes it again, with no restart. SQLite, a
// file in the process, needs none: its breaker never opens.
//
// Opening also cancels the requests already in flight (Guard): they were
// waiting on the same silent server, and answer 503 at once instead of
// each waiting out the request timeout.
type Breaker struct {
	open   atomic.Bool
	trip   atomic.Pointer[tripwire] // the one the next opening cuts
	probe  *sql.DB
	every  time.Duration
	wait   time.Duration
	trips  int // consecutive failed probes that open it
	log    *zap.Logger
	failed int
}

// BreakerSettings are the probe's rhythm.
var BreakerSettings = struct{ Every, Timeout time.Duration }{Every: 500 * time.Millisecond, Timeout: 2 * time.Second}

// NewBreaker probes the database of cfg for the app's lifetime.
func NewBreaker(lc fx.Lifecycle, cfg Config, log *zap.Logger) (*Breaker, error) {
	b := &Breaker{every: BreakerSettings.Every, wait: BreakerSettings.Timeout, trips: 2, log: log}
	if cfg.Dialect != MySQL {
		return b, nil
	}
	b.trip.Store(newTripwire())
	probe, err := openMySQL(cfg.DSN, 1, nil) // its pings every 500 ms are not traced
	if err != nil {
		return nil, err
	}
	probe.SetMaxOpenConns(1)
	probe.SetMaxIdleConns(1)
	b.probe = probe.DB
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error { go func() { defer close(done); b.run(ctx) }(); return nil },
		OnStop:  func(context.Context) error { cancel(); <-done; return probe.Close() },
	})
	return b, nil
}

// Open reports whether requests should be refused now.
func (b *Breaker) Open() bool { return b.open.Load() }

// ErrOpened is the cause of a request context the breaker cancelled: the
// request answers 503 unavailable (httpapi's failFast), not 500.
var ErrOpened = core.Unavailable("unavailable", "sqlstore.databaseStoppedAnsweringBreakerOpened", "the database stopped answering: breaker opened")

// tripwire is a context the breaker cancels when it opens; each request's
// guard is cancelled with it. A new one is laid when the breaker closes.
type tripwire struct {
	ctx    context.Context
	cancel context.CancelFunc
}

func newTripwire() *tripwire {
	ctx, cancel := context.WithCancel(context.Background())
	return &tripwire{ctx: ctx, cancel: cancel}
}

// Guard derives a request's context that the breaker cancels, with cause
// ErrOpened, when it opens; release must be called when the request ends.
// A request that passed the Open check just before an opening still gets
// the tripwire that opening cuts: the breaker lays the next one only when
// it closes.
func (b *Breaker) Guard(ctx context.Context) (context.Context, func()) {
	trip := b.trip.Load()
	if trip == nil { // SQLite: never opens
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(trip.ctx, func() { cancel(ErrOpened) })
	return ctx, func() { stop(); cancel(nil) }
}

func (b *Breaker) run(ctx context.Context) {
	core.Every(ctx, b.every, func() { b.observe(b.ping(ctx)) })
}

func (b *Breaker) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, b.wait)
	defer cancel()
	return b.probe.PingContext(ctx)
}

// observe moves the breaker by one probe's outcome.
func (b *Breaker) observe(err error) {
	if err == nil {
		b.failed = 0
		if b.open.Load() {
			if b.trip.Load() != nil {
				b.trip.Store(newTripwire()) // before it closes: a request let in is guarded by the new one
			}
			b.open.Store(false)
			b.log.Info("database answers again: breaker closed")
		}
		return
	}
	b.failed++
	if b.failed >= b.trips && !b.open.Swap(true) {
		if t := b.trip.Load(); t != nil {
			t.cancel()
		}
		b.log.Error("database does not answer: breaker open, requests fail fast with 503 and those waiting are cancelled", zap.Error(err))
	}
}
