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
type Breaker struct {
	open   atomic.Bool
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
	probe, err := openMySQL(cfg.DSN)
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
		if b.open.Swap(false) {
			b.log.Info("database answers again: breaker closed")
		}
		return
	}
	b.failed++
	if b.failed >= b.trips && !b.open.Swap(true) {
		b.log.Error("database does not answer: breaker open, requests fail fast with 503", zap.Error(err))
	}
}
