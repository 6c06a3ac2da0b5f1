package bootstrap

import (
	"context"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"tandem/modules/throttle"
)

// jobs runs the housekeeping loops of this process. They are idempotent, so
// running them in every process behind a load balancer is harmless.
var jobs = fx.Invoke(func(lc fx.Lifecycle, log *zap.Logger, limiter *throttle.Limiter) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			go func() {
				defer close(done)
				every(ctx, 10*time.Minute, func() {
					if n, err := limiter.Purge(ctx); err != nil {
						log.Warn("purge throttle counters", zap.Error(err))
					} else if n > 0 {
						log.Debug("purged throttle counters", zap.Int("rows", n))
					}
				})
			}()
			return nil
		},
		OnStop: func(context.Context) error { cancel(); <-done; return nil },
	})
})

func every(ctx context.Context, d time.Duration, fn func()) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			fn()
		}
	}
}
