package bootstrap

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/fx"
	"go.uber.org/zap"

	"tandem/adapters/telemetry"
	"tandem/modules/accounts"
	"tandem/modules/changes"
	"tandem/modules/events"
	"tandem/modules/idempotency"
	"tandem/modules/images"
	"tandem/modules/notifications"
	"tandem/modules/partners"
	"tandem/modules/premium"
	"tandem/modules/relationship"
	"tandem/modules/throttle"
)

// job is one periodic task of this process. Every job is safe to run in all
// processes behind a load balancer at once: purges are idempotent, reminders
// and mail are claimed in the database before they are sent, and push
// tickets before their receipts are read.
type job struct {
	name  string
	every time.Duration
	run   func(ctx context.Context) (int, error)
	// wake, when set, also runs the job at once: the mail Sender hears each
	// queued mail's commit there, so a healthy relay adds no delay (the
	// Revoker each queued revocation's).
	wake <-chan struct{}
}

// jobs starts the periodic tasks with the app and stops them with it.
var jobs = fx.Invoke(func(lc fx.Lifecycle, log *zap.Logger, cfg Config, tr *telemetry.Tracing, limiter *throttle.Limiter,
	accts *accounts.Service, mail *accounts.Sender, revoker *accounts.Revoker, reminders *events.Reminders, daily *notifications.Reminders,
	receipts *notifications.Receipts, sweeper *images.Sweeper, milestones *relationship.MilestonePushes,
	pairs *partners.Service, keys *idempotency.Service, feed *changes.Service, prem *premium.Service) {
	list := []job{
		{name: "send mail", every: cfg.MailPoll, run: mail.SendDue, wake: mail.Woken()},
		{name: "revoke the grants of removed sign-in identities", every: time.Minute, run: revoker.RevokeDue, wake: revoker.Woken()},
		{name: "purge throttle counters", every: 10 * time.Minute, run: limiter.Purge},
		{name: "purge expired tokens, codes, reset proofs and mail", every: 10 * time.Minute, run: accts.Purge},
		{name: "purge expired connection codes", every: 10 * time.Minute, run: pairs.PurgeExpiredConnections},
		{name: "purge expired idempotency keys", every: 10 * time.Minute, run: keys.Purge},
		{name: "purge changes past the retention", every: 10 * time.Minute, run: feed.Purge},
		{name: "record the premiums that lapsed in the change feed", every: time.Minute, run: prem.RecordLapses},
		{name: "send event reminders", every: cfg.ReminderInterval, run: reminders.SendDue},
		{name: "send daily reminders", every: cfg.ReminderInterval, run: daily.SendDue},
		{name: "purge daily reminder claims", every: 10 * time.Minute, run: daily.Purge},
		{name: "send milestone pushes", every: cfg.ReminderInterval, run: milestones.SendDue},
		{name: "read push receipts", every: time.Minute, run: receipts.CheckDue},
		{name: "sweep files without an image and stale temporary files", every: cfg.SweepInterval, run: sweeper.Sweep},
	}
	var tracer trace.Tracer // nil: runs are not traced
	if tr.On() {
		tracer = tr.Tracer("tandem/jobs")
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			for _, j := range list {
				wg.Add(1)
				go func() {
					defer wg.Done()
					every(ctx, j.every, j.wake, func() { runJob(ctx, log, tracer, j) })
				}()
			}
			mail.Wake() // what an earlier run left queued goes now
			revoker.Wake()
			return nil
		},
		OnStop: func(context.Context) error { cancel(); wg.Wait(); return nil },
	})
})

// runJob runs j once; traced, the run is a span of its own trace, and what
// it does (SQL, push, mail) its children.
func runJob(ctx context.Context, log *zap.Logger, tracer trace.Tracer, j job) {
	ctx, span := jobSpan(ctx, tracer, j.name)
	n, err := j.run(ctx)
	if span != nil {
		span.SetAttributes(attribute.Int("tandem.job.items", n))
		if err != nil {
			telemetry.Fail(span, err)
		}
		span.End()
	}
	switch {
	case err != nil && ctx.Err() == nil:
		log.Warn("job failed", zap.String("job", j.name), zap.Error(err))
	case n > 0:
		log.Info("job done", zap.String("job", j.name), zap.Int("items", n))
	}
}

// every runs fn every d and whenever wake has something (a nil wake never
// does), one run at a time.
func every(ctx context.Context, d time.Duration, wake <-chan struct{}, fn func()) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-wake:
		}
		fn()
	}
}
