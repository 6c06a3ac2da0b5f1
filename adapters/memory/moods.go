package memory

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"tandem/core"
	"tandem/modules/moods"
)

var _ moods.Repository = (*MoodRepo)(nil)

// MoodRepo keeps each user's moods by date under one mutex, which makes a
// put's read and write one step.
type MoodRepo struct {
	mu     sync.RWMutex
	byUser map[string]map[core.Date]moods.Mood
}

func NewMoodRepo() *MoodRepo { return &MoodRepo{byUser: map[string]map[core.Date]moods.Mood{}} }

func (r *MoodRepo) Put(_ context.Context, m moods.Mood, made func(moods.Mood)) (moods.Mood, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	days := r.byUser[m.UserID]
	if days == nil {
		days = map[core.Date]moods.Mood{}
		r.byUser[m.UserID] = days
	}
	if old, ok := days[m.Date]; ok {
		m.ID, m.CreatedAt = old.ID, old.CreatedAt
	}
	days[m.Date] = m
	if made != nil {
		made(m)
	}
	return m, nil
}

func (r *MoodRepo) Range(_ context.Context, userID, partnershipID string, from, to core.Date) ([]moods.Mood, error) {
	r.mu.RLock()
	var out []moods.Mood
	for d, m := range r.byUser[userID] {
		if !d.Before(from) && !d.After(to) && (partnershipID == "" || m.PartnershipID == partnershipID) {
			out = append(out, m)
		}
	}
	r.mu.RUnlock()
	slices.SortFunc(out, func(a, b moods.Mood) int { return cmp.Compare(a.Date.String(), b.Date.String()) })
	return out, nil
}

func (r *MoodRepo) On(_ context.Context, keys []moods.DayKey) ([]moods.Mood, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := []moods.Mood{}
	for _, k := range keys {
		if m, ok := r.byUser[k.UserID][k.Date]; ok && (k.PartnershipID == "" || m.PartnershipID == k.PartnershipID) {
			out = append(out, m)
		}
	}
	return out, nil
}

func (r *MoodRepo) DeleteByUser(_ context.Context, userID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.byUser, userID)
	return nil
}
