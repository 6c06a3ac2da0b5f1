package memory

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"tandem/core"
	"tandem/modules/changes"
)

var _ changes.Repository = (*ChangeRepo)(nil)

// ChangeRepo keeps the change feed in commit order. The memory stores have
// no transactions: a write's changes reach it after the write, through
// core.ChangesCommitted (changes.Service.Listener), under its own lock.
type ChangeRepo struct {
	rec      changes.Recording
	partners *PartnerRepo // the partnerships a change is read through (core.Change.Via); nil: not checked
	mu       sync.RWMutex
	seq      int64
	rows     []core.Change // by Seq
}

func NewChangeRepo(rec changes.Recording, partners *PartnerRepo) *ChangeRepo {
	return &ChangeRepo{rec: rec, partners: partners}
}

func (r *ChangeRepo) Append(_ context.Context, cs []core.Change) error {
	if r.rec.Render == nil || r.rec.Clock == nil {
		return core.Internal(fmt.Errorf("changes: the store has no renderer"))
	}
	out := make([]core.Change, 0, len(cs))
	now := r.rec.Clock.Now()
	for _, c := range cs {
		if c = c.Resolved(); c.Dropped() {
			continue
		}
		if c.Op == core.ChangePut && c.Data == nil {
			data, err := r.rec.Render(c.Record)
			if err != nil {
				return core.Internal(fmt.Errorf("changes: render %s %s: %w", c.Kind, c.ID, err))
			}
			c.Data = data
		}
		if c.Op != core.ChangePut {
			c.Data = nil
		}
		c.At, c.Record = now, nil
		out = append(out, c)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	out = r.throughLiveLocked(out)
	for i := range out {
		r.seq++
		out[i].Seq = r.seq
		r.rows = append(r.rows, out[i])
	}
	return nil
}

// throughLiveLocked is cs without the changes read through a partnership
// that no longer exists, in place. It is checked under r.mu, with the
// changes inserted: an unpair's changes are appended after its end, so a
// write's put either comes before them or finds the partnership gone (as
// the SQL stores' shared lock on its row).
func (r *ChangeRepo) throughLiveLocked(cs []core.Change) []core.Change {
	if r.partners == nil {
		return cs
	}
	return slices.DeleteFunc(cs, func(c core.Change) bool { return c.Via != "" && !r.partners.exists(c.Via) })
}

func (r *ChangeRepo) Since(_ context.Context, userID string, seq int64, limit int) ([]core.Change, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := []core.Change{}
	for _, c := range r.rows { // a QA store: a scan is fine
		if c.UserID == userID && c.Seq > seq {
			c.Data = append([]byte(nil), c.Data...)
			if c.Op != core.ChangePut {
				c.Data = nil
			}
			out = append(out, c)
			if len(out) == limit {
				break
			}
		}
	}
	return out, nil
}

func (r *ChangeRepo) Last(_ context.Context, userID string) (int64, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for i := len(r.rows) - 1; i >= 0; i-- {
		if r.rows[i].UserID == userID {
			return r.rows[i].Seq, nil
		}
	}
	return 0, nil
}

func (r *ChangeRepo) Purge(_ context.Context, before time.Time) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	kept := r.rows[:0]
	for _, c := range r.rows {
		if !c.At.Before(before) {
			kept = append(kept, c)
		}
	}
	n := len(r.rows) - len(kept)
	clear(r.rows[len(kept):])
	r.rows = kept
	return n, nil
}

func (r *ChangeRepo) DeleteUser(_ context.Context, userID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rows = slices.DeleteFunc(r.rows, func(c core.Change) bool { return c.UserID == userID })
	return nil
}
