package memory

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"tandem/core"
	"tandem/modules/relationship"
)

var (
	_ relationship.Repository          = (*RelationshipRepo)(nil)
	_ relationship.MilestoneRepository = (*RelationshipRepo)(nil)
)

// RelationshipRepo keeps relationships by id, the milestone checks of the
// active ones and the milestone claims; the mutex makes "one active per
// partnership" as atomic as the unique index of the SQL schema, and a claim
// as atomic as its primary key.
type RelationshipRepo struct {
	mu     sync.RWMutex
	byID   map[string]relationship.Relationship
	checks map[string]time.Time // by relationship id, active ones only
	claims map[milestoneClaim]time.Time
}

type milestoneClaim struct {
	relationshipID, userID string
	day                    core.Date
}

func NewRelationshipRepo() *RelationshipRepo {
	return &RelationshipRepo{byID: map[string]relationship.Relationship{}, checks: map[string]time.Time{},
		claims: map[milestoneClaim]time.Time{}}
}

func (r *RelationshipRepo) Start(_ context.Context, rel relationship.Relationship) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, o := range r.byID {
		if o.ID == rel.ID || (o.Active && o.PartnershipID == rel.PartnershipID) {
			return core.Conflict("conflict", "memory.alreadyActive", "already active")
		}
	}
	rel.Active, rel.EndDate = true, core.Date{}
	r.byID[rel.ID] = rel
	r.checks[rel.ID] = rel.CreatedAt
	return nil
}

// newerRelationship orders like the SQL query: active first, then newest.
func newerRelationship(a, b relationship.Relationship) int {
	switch {
	case a.Active != b.Active:
		if a.Active {
			return -1
		}
		return 1
	case !a.CreatedAt.Equal(b.CreatedAt):
		return b.CreatedAt.Compare(a.CreatedAt)
	}
	return cmp.Compare(b.ID, a.ID)
}

func (r *RelationshipRepo) Latest(_ context.Context, partnershipID string) (relationship.Relationship, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var found []relationship.Relationship
	for _, o := range r.byID {
		if o.PartnershipID == partnershipID {
			found = append(found, o)
		}
	}
	if len(found) == 0 {
		return relationship.Relationship{}, core.NotFound("not_found", "memory.noRelationship", "no relationship")
	}
	slices.SortFunc(found, newerRelationship)
	return found[0], nil
}

func (r *RelationshipRepo) End(_ context.Context, id string, on core.Date, at time.Time) (relationship.Relationship, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o, ok := r.byID[id]
	if !ok || !o.Active {
		return relationship.Relationship{}, core.NotFound("not_found", "memory.noActiveRelationship", "no active relationship")
	}
	o.Active, o.EndDate, o.UpdatedAt = false, on, at
	r.byID[id] = o
	delete(r.checks, id)
	return o, nil
}

func (r *RelationshipRepo) ListByUser(_ context.Context, userID string) ([]relationship.Relationship, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := []relationship.Relationship{}
	for _, o := range r.byID {
		if o.Members[0] == userID || o.Members[1] == userID {
			out = append(out, o)
		}
	}
	slices.SortFunc(out, func(a, b relationship.Relationship) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
	return out, nil
}

func (r *RelationshipRepo) DeleteByUser(_ context.Context, userID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, o := range r.byID {
		if o.Members[0] == userID || o.Members[1] == userID {
			delete(r.byID, id)
			delete(r.checks, id)
			for k := range r.claims {
				if k.relationshipID == id {
					delete(r.claims, k)
				}
			}
		}
	}
	return nil
}

func (r *RelationshipRepo) DueMilestones(_ context.Context, now time.Time, limit int) ([]relationship.MilestoneCheck, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []relationship.MilestoneCheck
	for id, at := range r.checks {
		if !at.After(now) {
			out = append(out, relationship.MilestoneCheck{Relationship: r.byID[id], At: at})
		}
	}
	slices.SortFunc(out, func(a, b relationship.MilestoneCheck) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		return cmp.Compare(a.Relationship.ID, b.Relationship.ID)
	})
	return out[:min(limit, len(out))], nil
}

func (r *RelationshipRepo) MoveMilestones(_ context.Context, relationshipID string, from, to time.Time) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if at, ok := r.checks[relationshipID]; !ok || !at.Equal(from) {
		return false, nil
	}
	r.checks[relationshipID] = to
	return true, nil
}

func (r *RelationshipRepo) RecheckMilestones(_ context.Context, relationshipID string, at time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.checks[relationshipID]; ok {
		r.checks[relationshipID] = at
	}
	return nil
}

func (r *RelationshipRepo) ClaimMilestone(_ context.Context, userID, relationshipID string, day core.Date, at time.Time) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := milestoneClaim{relationshipID: relationshipID, userID: userID, day: day}
	if _, ok := r.claims[k]; ok {
		return false, nil
	}
	r.claims[k] = at
	return true, nil
}
