package throttle

import (
	"context"
	"time"

	"tandem/core"
)

// Limiter implements core.Limiter over a Repository of fixed-window counters.
var _ core.Limiter = (*Limiter)(nil)

type Limiter struct {
	repo  Repository
	clock core.Clock
}

func NewLimiter(repo Repository, clock core.Clock) *Limiter {
	return &Limiter{repo: repo, clock: clock}
}

// Hit counts one event and refuses it (429, code) once the limit is passed.
func (l *Limiter) Hit(ctx context.Context, r core.RateRule, subject, code string) error {
	start, end := window(r, l.clock.Now())
	n, err := l.repo.Add(ctx, key(r, subject), start, end)
	if err != nil {
		return err
	}
	if n > r.Limit {
		return l.refuse(code, end)
	}
	return nil
}

// Undo gives back one event of the current window (see core.Limiter).
func (l *Limiter) Undo(ctx context.Context, r core.RateRule, subject string) error {
	start, _ := window(r, l.clock.Now())
	return l.repo.Sub(ctx, key(r, subject), start)
}

// Reset forgets every counted event of subject under r.
func (l *Limiter) Reset(ctx context.Context, r core.RateRule, subject string) error {
	return l.repo.Clear(ctx, key(r, subject))
}

// Purge drops expired counters; bootstrap runs it periodically.
func (l *Limiter) Purge(ctx context.Context) (int, error) {
	return l.repo.Purge(ctx, l.clock.Now())
}

func (l *Limiter) refuse(code string, windowEnd time.Time) error {
	wait := windowEnd.Sub(l.clock.Now())
	if wait < time.Second {
		wait = time.Second
	}
	return core.RateLimited(code, "throttle.tooManyRequestsTryAgain", "too many requests, try again later", wait)
}
