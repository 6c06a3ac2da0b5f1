package memory

import (
	"bytes"
	"context"
	"sync"
	"time"

	"tandem/core"
	"tandem/modules/premium"
)

var _ premium.Repository = (*PremiumRepo)(nil)

// PremiumRepo keeps subscriptions by user id. Meta is copied in and out so
// callers never alias stored bytes.
type PremiumRepo struct {
	mu     sync.RWMutex
	byUser map[string]premium.Subscription
	events map[string]time.Time // store events applied, by id
}

func NewPremiumRepo() *PremiumRepo {
	return &PremiumRepo{byUser: map[string]premium.Subscription{}, events: map[string]time.Time{}}
}

func cloneSubscription(s premium.Subscription) premium.Subscription {
	s.Meta = bytes.Clone(s.Meta)
	return s
}

func errNoSubscription() error {
	return core.NotFound("not_found", "memory.noSubscription", "no subscription")
}

func (r *PremiumRepo) Get(_ context.Context, userID string) (premium.Subscription, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	s, ok := r.byUser[userID]
	if !ok {
		return premium.Subscription{}, errNoSubscription()
	}
	return cloneSubscription(s), nil
}

func (r *PremiumRepo) Put(_ context.Context, s premium.Subscription) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.heldByOther(s) {
		return premium.ErrPurchaseInUse()
	}
	if old, ok := r.byUser[s.UserID]; ok {
		s.CreatedAt = old.CreatedAt
	}
	r.byUser[s.UserID] = cloneSubscription(s)
	return nil
}

func (r *PremiumRepo) Update(_ context.Context, userID string, fn func(s *premium.Subscription) error) (premium.Subscription, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.byUser[userID]
	if !ok {
		return premium.Subscription{}, errNoSubscription()
	}
	return r.save(s, fn)
}

// save applies fn to a copy of s and stores it; the caller holds the lock.
func (r *PremiumRepo) save(s premium.Subscription, fn func(s *premium.Subscription) error) (premium.Subscription, error) {
	userID := s.UserID
	s = cloneSubscription(s)
	if err := fn(&s); err != nil {
		return premium.Subscription{}, err
	}
	s.UserID = userID
	if r.heldByOther(s) {
		return premium.Subscription{}, premium.ErrPurchaseInUse()
	}
	r.byUser[userID] = cloneSubscription(s)
	return s, nil
}

// heldByOther reports whether another user's subscription has s's store key,
// as the SQL unique index would.
func (r *PremiumRepo) heldByOther(s premium.Subscription) bool {
	key := s.Key()
	if key == "" {
		return false
	}
	for id, other := range r.byUser {
		if id != s.UserID && other.Key() == key {
			return true
		}
	}
	return false
}

func (r *PremiumRepo) ApplyStoreEvent(_ context.Context, eventID, key string, at time.Time, fn func(s *premium.Subscription) error) (applied, found bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, seen := r.events[eventID]; seen {
		return false, false, nil
	}
	for _, s := range r.byUser {
		if key != "" && s.Key() == key {
			if _, err := r.save(s, fn); err != nil {
				return false, false, err
			}
			r.events[eventID] = at
			return true, true, nil
		}
	}
	r.events[eventID] = at
	return true, false, nil
}

func (r *PremiumRepo) Delete(_ context.Context, userID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.byUser, userID)
	return nil
}
