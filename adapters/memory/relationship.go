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

var _ relationship.Repository = (*RelationshipRepo)(nil)

// RelationshipRepo keeps relationships by id; the mutex makes "one active per
// partnership" as atomic as the unique index of the SQL schema.
type RelationshipRepo struct {
	mu   sync.RWMutex
	byID map[string]relationship.Relationship
}

func NewRelationshipRepo() *RelationshipRepo {
	return &RelationshipRepo{byID: map[string]relationship.Relationship{}}
}

func (r *RelationshipRepo) Start(_ context.Context, rel relationship.Relationship) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, o := range r.byID {
		if o.ID == rel.ID || (o.Active && o.PartnershipID == rel.PartnershipID) {
			return core.Conflict("conflict", "already active")
		}
	}
	rel.Active, rel.EndDate = true, core.Date{}
	r.byID[rel.ID] = rel
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
		return relationship.Relationship{}, core.NotFound("not_found", "no relationship")
	}
	slices.SortFunc(found, newerRelationship)
	return found[0], nil
}

func (r *RelationshipRepo) End(_ context.Context, id string, on core.Date, at time.Time) (relationship.Relationship, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o, ok := r.byID[id]
	if !ok || !o.Active {
		return relationship.Relationship{}, core.NotFound("not_found", "no active relationship")
	}
	o.Active, o.EndDate, o.UpdatedAt = false, on, at
	r.byID[id] = o
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
		}
	}
	return nil
}
