// Package relationship tracks how long a couple has been together: one
// relationship per partnership at a time, read the same by both partners.
package relationship

import (
	"time"

	"tandem/core"
)

// Relationship belongs to a partnership. Members keeps the two partners so a
// user's relationships can be exported and purged after the partnership ends.
type Relationship struct {
	ID            string
	PartnershipID string
	Members       [2]string
	StartDate     core.Date
	EndDate       core.Date // zero while active
	Active        bool
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// Duration is the spec's duration object as seen by one partner.
type Duration struct {
	Days      int
	StartDate core.Date
	EndDate   core.Date // zero while active
	Active    bool
}

// DurationOn is r as seen on the reader's today: whole days from the start to
// today, or to the end date once ended. Civil-date arithmetic, so DST changes
// never shift the count. A start that is still tomorrow for the reader (set
// by a partner further east) counts 0, never a negative number.
func (r Relationship) DurationOn(today core.Date) Duration {
	until := today
	if !r.Active {
		until = r.EndDate
	}
	return Duration{Days: max(0, r.StartDate.DaysUntil(until)), StartDate: r.StartDate, EndDate: r.EndDate, Active: r.Active}
}

// members orders the two partners so both build the same pair.
func members(a, b string) [2]string {
	if b < a {
		a, b = b, a
	}
	return [2]string{a, b}
}

func errNotPaired() error {
	return core.Conflict("not_paired", "relationship.needPartner", "you need a partner for this")
}

func errNoRelationship() error {
	return core.NotFound("not_found", "memory.noRelationship", "no relationship")
}

func errNoActive() error {
	return core.NotFound("not_found", "memory.noActiveRelationship", "no active relationship")
}

func errFuture() error {
	return core.Invalid("invalid_date", "memories.dateNotFuture", "date must not be in the future")
}
