package memory

import (
	"context"
	"slices"
	"sync"

	"tandem/core"
	"tandem/modules/advice"
)

var _ advice.Repository = (*AdviceRepo)(nil)

// AdviceRepo keeps each user's advice by date under one mutex, so Open is
// atomic like its SQL transaction.
type AdviceRepo struct {
	mu     sync.Mutex
	byUser map[string]map[core.Date]advice.Daily
}

func NewAdviceRepo() *AdviceRepo { return &AdviceRepo{byUser: map[string]map[core.Date]advice.Daily{}} }

func (r *AdviceRepo) Open(_ context.Context, userID string, day core.Date, pick func(nearby []advice.Daily) (advice.Daily, error)) (advice.Daily, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	mine := r.byUser[userID]
	if d, ok := mine[day]; ok {
		return d, nil
	}
	from, to := advice.NearbyFrom(day), advice.NearbyTo(day)
	var nearby []advice.Daily
	for _, d := range mine {
		if !d.Date.Before(from) && !d.Date.After(to) {
			nearby = append(nearby, d)
		}
	}
	slices.SortFunc(nearby, func(a, b advice.Daily) int { return a.Date.Time().Compare(b.Date.Time()) })
	d, err := pick(nearby)
	if err != nil {
		return advice.Daily{}, err
	}
	d.UserID, d.Date = userID, day
	if mine == nil {
		mine = map[core.Date]advice.Daily{}
		r.byUser[userID] = mine
	}
	mine[day] = d
	return d, nil
}

func (r *AdviceRepo) ListByUser(_ context.Context, userID string) ([]advice.Daily, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]advice.Daily, 0, len(r.byUser[userID]))
	for _, d := range r.byUser[userID] {
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b advice.Daily) int { return b.Date.Time().Compare(a.Date.Time()) })
	return out, nil
}

func (r *AdviceRepo) DeleteByUser(_ context.Context, userID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.byUser, userID)
	return nil
}
