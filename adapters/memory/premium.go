package memory

import (
	"bytes"
	"cmp"
	"context"
	"strings"
	"sync"
	"time"

	"tandem/modules/premium"
)

var _ premium.Repository = (*PremiumRepo)(nil)

// PremiumRepo keeps subscriptions by user id. Meta is copied in and out so
// callers never alias stored bytes.
type PremiumRepo struct {
	mu     sync.RWMutex
	subs   table[string, premium.Subscription]
	events map[string]time.Time // store events applied, by id
}

func NewPremiumRepo() *PremiumRepo {
	return &PremiumRepo{subs: newTable[string, premium.Subscription](nil, notFound("memory.noSubscription", "no subscription")).cloned(cloneSubscription),
		events: map[string]time.Time{}}
}

func cloneSubscription(s premium.Subscription) premium.Subscription {
	s.Meta = bytes.Clone(s.Meta)
	return s
}

func (r *PremiumRepo) Get(_ context.Context, userID string) (premium.Subscription, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.subs.find(userID)
}

func (r *PremiumRepo) Put(_ context.Context, s premium.Subscription) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.heldByOther(s) {
		return premium.ErrPurchaseInUse()
	}
	if old, ok := r.subs.get(s.UserID); ok {
		s.CreatedAt = old.CreatedAt
	}
	r.subs.put(s.UserID, s)
	return nil
}

func (r *PremiumRepo) Update(_ context.Context, userID string, fn func(s *premium.Subscription) error) (premium.Subscription, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.subs.find(userID); err != nil {
		return premium.Subscription{}, err
	}
	return r.save(userID, fn)
}

// save applies fn to userID's subscription and stores it; the caller holds
// the lock.
func (r *PremiumRepo) save(userID string, fn func(s *premium.Subscription) error) (premium.Subscription, error) {
	return r.subs.update(userID, func(s *premium.Subscription) error {
		if err := fn(s); err != nil {
			return err
		}
		s.UserID = userID
		if r.heldByOther(*s) {
			return premium.ErrPurchaseInUse()
		}
		return nil
	})
}

// heldByOther reports whether another user's subscription has s's store key,
// as the SQL unique index would.
func (r *PremiumRepo) heldByOther(s premium.Subscription) bool {
	key := s.Key()
	_, _, held := r.subs.pick(func(o premium.Subscription) bool { return key != "" && o.UserID != s.UserID && o.Key() == key })
	return held
}

func (r *PremiumRepo) ApplyStoreEvent(_ context.Context, eventID, key string, at time.Time, fn func(s *premium.Subscription) error) (applied, found bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, seen := r.events[eventID]; seen {
		return false, false, nil
	}
	userID, _, found := r.subs.pick(func(s premium.Subscription) bool { return key != "" && s.Key() == key })
	if found {
		if _, err := r.save(userID, fn); err != nil {
			return false, false, err
		}
	}
	r.events[eventID] = at
	return true, found, nil
}

func (r *PremiumRepo) ByKey(_ context.Context, key string) (premium.Subscription, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	_, s, found := r.subs.pick(func(s premium.Subscription) bool { return key != "" && s.Key() == key })
	if !found {
		return premium.Subscription{}, r.subs.notFound()
	}
	return s, nil
}

func (r *PremiumRepo) DueLapses(_ context.Context, now time.Time, limit int) ([]premium.Subscription, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	due := r.subs.scan(func(s premium.Subscription) bool { return !s.LapseDue.IsZero() && !s.LapseDue.After(now) },
		func(a, b premium.Subscription) int {
			return cmp.Or(a.LapseDue.Compare(b.LapseDue), strings.Compare(a.UserID, b.UserID))
		})
	return due[:min(limit, len(due))], nil
}

func (r *PremiumRepo) Delete(_ context.Context, userID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.subs.delete(userID)
	return nil
}
