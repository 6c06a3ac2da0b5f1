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
	byID   table[string, relationship.Relationship]
	checks schedule[string] // by relationship id, active ones only
	claims table[milestoneClaim, time.Time]
}

type milestoneClaim struct {
	relationshipID, userID string
	day                    core.Date
}

func NewRelationshipRepo() *RelationshipRepo {
	return &RelationshipRepo{byID: newTable[string, relationship.Relationship](nil, nil), checks: schedule[string]{},
		claims: newTable[milestoneClaim, time.Time](nil, nil)}
}

func (r *RelationshipRepo) Start(_ context.Context, rel relationship.Relationship) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, _, taken := r.byID.pick(func(o relationship.Relationship) bool {
		return o.ID == rel.ID || (o.Active && o.PartnershipID == rel.PartnershipID)
	}); taken {
		return core.Conflict("conflict", "memory.alreadyActive", "already active")
	}
	rel.Active, rel.EndDate = true, core.Date{}
	r.byID.put(rel.ID, rel)
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
	found := r.byID.scan(func(o relationship.Relationship) bool { return o.PartnershipID == partnershipID }, newerRelationship)
	if len(found) == 0 {
		return relationship.Relationship{}, core.NotFound("not_found", "memory.noRelationship", "no relationship")
	}
	return found[0], nil
}

func (r *RelationshipRepo) End(_ context.Context, id string, on core.Date, at time.Time) (relationship.Relationship, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o, ok := r.byID.get(id)
	if !ok || !o.Active {
		return relationship.Relationship{}, core.NotFound("not_found", "memory.noActiveRelationship", "no active relationship")
	}
	o.Active, o.EndDate, o.UpdatedAt = false, on, at
	r.byID.put(id, o)
	delete(r.checks, id)
	return o, nil
}

func (r *RelationshipRepo) ListByUser(_ context.Context, userID string) ([]relationship.Relationship, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.byID.scan(func(o relationship.Relationship) bool { return slices.Contains(o.Members[:], userID) },
		func(a, b relationship.Relationship) int {
			return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(b.ID, a.ID))
		}), nil
}

func (r *RelationshipRepo) DeleteByUser(_ context.Context, userID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	gone := r.byID.deleteWhere(func(_ string, o relationship.Relationship) bool { return slices.Contains(o.Members[:], userID) })
	for _, id := range gone {
		delete(r.checks, id)
		r.claims.deleteWhere(func(k milestoneClaim, _ time.Time) bool { return k.relationshipID == id })
	}
	return nil
}

func (r *RelationshipRepo) DueMilestones(_ context.Context, now time.Time, limit int) ([]relationship.MilestoneCheck, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []relationship.MilestoneCheck
	for _, id := range r.checks.due(now, limit) {
		o, _ := r.byID.get(id)
		out = append(out, relationship.MilestoneCheck{Relationship: o, At: r.checks[id]})
	}
	return out, nil
}

func (r *RelationshipRepo) MoveMilestones(_ context.Context, relationshipID string, from, to time.Time) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.checks.move(relationshipID, from, to), nil
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
	if r.claims.has(k) {
		return false, nil
	}
	r.claims.put(k, at)
	return true, nil
}
