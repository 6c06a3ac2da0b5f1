package bootstrap

import (
	"context"
	"sync"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"tandem/core"
	"tandem/modules/accounts"
	"tandem/modules/events"
	"tandem/modules/images"
	"tandem/modules/notifications"
	"tandem/modules/throttle"
)

// job is one periodic task of this process. Every job is safe to run in all
// processes behind a load balancer at once: purges are idempotent, reminders
// are claimed in the database before they are sent, and push tickets before
// their receipts are read.
type job struct {
	name  string
	every time.Duration
	run   func(ctx context.Context) (int, error)
}

// jobs starts the periodic tasks with the app and stops them with it.
var jobs = fx.Invoke(func(lc fx.Lifecycle, log *zap.Logger, cfg Config, limiter *throttle.Limiter,
	accts *accounts.Service, reminders *events.Reminders, daily *notifications.Reminders, receipts *notifications.Receipts,
	sweeper *images.Sweeper) {
	list := []job{
		{"purge throttle counters", 10 * time.Minute, limiter.Purge},
		{"purge expired tokens, codes and reset proofs", 10 * time.Minute, accts.Purge},
		{"send event reminders", cfg.ReminderInterval, reminders.SendDue},
		{"send daily reminders", cfg.ReminderInterval, daily.SendDue},
		{"purge daily reminder claims", 10 * time.Minute, daily.Purge},
		{"read push receipts", time.Minute, receipts.CheckDue},
		{"sweep files without an image and stale temporary files", cfg.SweepInterval, sweeper.Sweep},
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			for _, j := range list {
				wg.Add(1)
				go func() {
					defer wg.Done()
					core.Every(ctx, j.every, func() { runJob(ctx, log, j) })
				}()
			}
			return nil
		},
		OnStop: func(context.Context) error { cancel(); wg.Wait(); return nil },
	})
})

func runJob(ctx context.Context, log *zap.Logger, j job) {
	n, err := j.run(ctx)
	switch {
	case err != nil && ctx.Err() == nil:
		log.Warn("job failed", zap.String("job", j.name), zap.Error(err))
	case n > 0:
		log.Info("job done", zap.String("job", j.name), zap.Int("items", n))
	}
}
