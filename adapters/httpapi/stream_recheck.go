// This file is the live stream's token rechecks: every open stream's token
// is looked up in the store again every Recheck and after a bus gap, and a
// revoked or expired one ends its streams.

package httpapi

import (
	"context"
	"time"

	"go.uber.org/zap"

	"tandem/core"
)

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

// confirmed says whether s may carry its next event. After a bus gap (an
// outage, a dropped message) a revocation may have been lost, and NATS
// hands over what it buffered before the gap is told: so the first event
// after one waits for the token to be found in the store again. A token
// gone ends the stream (revoked), one past its expiry too (expired); a
// store that does not answer is asked again each second, the events
// waiting meanwhile (a stream too far behind ends lagging, as always).
func (h *Streams) confirmed(s *stream) bool {
	epoch := h.epoch.Load()
	if s.checked == epoch {
		return true
	}
	for {
		select {
		case <-s.done:
			return false
		default:
		}
		lookup, cancel := context.WithTimeout(context.Background(), recheckTimeout)
		sess, err := h.store.Session(lookup, s.token)
		cancel()
		switch {
		case core.IsKind(err, core.KindNotFound):
			if h.evict != nil {
				h.evict(s.token)
			}
			h.endTokens("revoked", s.token)
			return false
		case err != nil:
			select {
			case <-s.done:
			case <-time.After(time.Second):
			}
			continue
		case !h.clock.Now().Before(sess.ExpiresAt):
			s.end("expired")
			return false
		}
		s.checked = epoch
		return true
	}
}
