package core

import (
	"context"
	"time"
)

// Every calls fn each d until ctx ends (the periodic jobs, probes and
// sweeps of the process). The first call is d after the start.
func Every(ctx context.Context, d time.Duration, fn func()) {
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
