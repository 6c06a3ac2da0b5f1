package memory

import (
	"bytes"
	"context"
	"sync"

	"tandem/core"
	"tandem/modules/premium"
)

var _ premium.Repository = (*PremiumRepo)(nil)

// PremiumRepo keeps subscriptions by user id. Meta is copied in and out so
// callers never alias stored bytes.
type PremiumRepo struct {
	mu     sync.RWMutex
	byUser map[string]premium.Subscription
}

func NewPremiumRepo() *PremiumRepo { return &PremiumRepo{byUser: map[string]premium.Subscription{}} }

func cloneSubscription(s premium.Subscription) premium.Subscription {
	s.Meta = bytes.Clone(s.Meta)
	return s
}

func errNoSubscription() error { return core.NotFound("not_found", "no subscription") }

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
	s = cloneSubscription(s)
	if err := fn(&s); err != nil {
		return premium.Subscription{}, err
	}
	s.UserID = userID
	r.byUser[userID] = cloneSubscription(s)
	return s, nil
}

func (r *PremiumRepo) Delete(_ context.Context, userID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.byUser, userID)
	return nil
}
