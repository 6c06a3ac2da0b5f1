package throttle

import (
	"context"
	"time"

	"tandem/core"
)

// Limiter enforces Rules over a Repository.
type Limiter struct {
	repo  Repository
	clock core.Clock
}

func NewLimiter(repo Repository, clock core.Clock) *Limiter {
	return &Limiter{repo: repo, clock: clock}
}

// Hit counts one event and refuses it (429, code) once the limit is passed.
func (l *Limiter) Hit(ctx context.Context, r Rule, subject, code string) error {
	start, end := r.window(l.clock.Now())
	n, err := l.repo.Add(ctx, r.key(subject), start, end)
	if err != nil {
		return err
	}
	if n > r.Limit {
		return l.refuse(code, end)
	}
	return nil
}

// Check refuses when the limit is already reached, without counting: for
// counters of failures, which are added only when the attempt fails.
func (l *Limiter) Check(ctx context.Context, r Rule, subject, code string) error {
	start, end := r.window(l.clock.Now())
	n, err := l.repo.Count(ctx, r.key(subject), start)
	if err != nil {
		return err
	}
	if n >= r.Limit {
		return l.refuse(code, end)
	}
	return nil
}

// Fail counts one failure (see Check).
func (l *Limiter) Fail(ctx context.Context, r Rule, subject string) error {
	start, end := r.window(l.clock.Now())
	_, err := l.repo.Add(ctx, r.key(subject), start, end)
	return err
}

// Reset forgets every counted event of subject under r.
func (l *Limiter) Reset(ctx context.Context, r Rule, subject string) error {
	return l.repo.Clear(ctx, r.key(subject))
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
	return core.RateLimited(code, "too many requests, try again later", wait)
}
