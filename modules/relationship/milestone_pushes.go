package relationship

import (
	"context"
	"errors"
	"fmt"
	"time"

	"tandem/core"
)

const (
	// MilestoneBatch bounds one read of due milestone checks.
	MilestoneBatch = 100
	// MilestoneRunLimit bounds the checks one run works through; what is
	// left stays due for the next run.
	MilestoneRunLimit = 10 * MilestoneBatch
	// MilestoneRetry is how long a check that could not be worked out (a
	// failed read, claim or push) waits before the next try.
	MilestoneRetry = 5 * time.Minute
	// MilestoneCategory is the notification category of a milestone push:
	// the partnerActivity setting (and pauseAll) decides it.
	MilestoneCategory = "partnerActivity"
)

// MilestonePushes tells both partners of each milestone of their active
// relationship on its morning: at MilestoneTime in each one's own profile
// timezone (core.InstantOf: daylight saving neither skips nor doubles it),
// even late while that local date lasts (after a retry, or a pause of the
// jobs), never for a date gone by. Each relationship's next check is
// stored (the earlier of the partners' next mornings), so the job reads
// the due ones only; a timezone change makes it due at once (Listener).
// Each (user, relationship, local date) is claimed in the database before
// the push, so it goes out once however many processes run the job (at
// most once: a failed push after the claim loses it).
type MilestonePushes struct {
	milestones   MilestoneRepository
	repo         Repository
	partnerships Partnerships
	users        Users
	notifier     MilestoneNotifier
	clock        core.Clock
}

// NewMilestonePushes is a plain constructor, usable without fx.
func NewMilestonePushes(milestones MilestoneRepository, repo Repository, partnerships Partnerships, users Users,
	notifier MilestoneNotifier, clock core.Clock) *MilestonePushes {
	return &MilestonePushes{milestones: milestones, repo: repo, partnerships: partnerships, users: users,
		notifier: notifier, clock: clock}
}

// SendDue works through the milestone checks due by now, at most
// MilestoneRunLimit of them, and returns how many pushes it sent. A check
// that cannot be worked out is tried again MilestoneRetry later and does
// not stop the others; their errors are returned together. A failing
// store ends the run.
func (p *MilestonePushes) SendDue(ctx context.Context) (int, error) {
	sent, handled := 0, 0
	var errs []error
	seen := map[string]bool{}
	for handled < MilestoneRunLimit {
		now := p.clock.Now()
		limit := min(MilestoneBatch, MilestoneRunLimit-handled)
		due, err := p.milestones.DueMilestones(ctx, now, limit)
		if err != nil {
			return sent, errors.Join(append(errs, err)...)
		}
		fresh := 0
		for _, c := range due {
			if seen[c.Relationship.ID] {
				continue // moved into the past meanwhile (a recheck): the next run takes it
			}
			seen[c.Relationship.ID] = true
			fresh++
			n, next, err := p.check(ctx, c.Relationship, now)
			sent += n
			if err != nil {
				errs = append(errs, fmt.Errorf("milestones of relationship %s: %w", c.Relationship.ID, err))
				next = now.Add(MilestoneRetry)
			}
			if _, err := p.milestones.MoveMilestones(ctx, c.Relationship.ID, c.At, next); err != nil {
				return sent, errors.Join(append(errs, err)...)
			}
		}
		handled += fresh
		if len(due) < limit || fresh == 0 {
			break
		}
	}
	return sent, errors.Join(errs...)
}

// check pushes r's milestones of today to each partner whose morning has
// come, and returns how many it sent and when r is next to be checked: the
// earlier of the partners' next mornings with a milestone.
func (p *MilestonePushes) check(ctx context.Context, r Relationship, now time.Time) (int, time.Time, error) {
	sent := 0
	var next time.Time
	for _, userID := range r.Members {
		loc, err := p.users.Location(ctx, userID)
		if core.IsKind(err, core.KindNotFound) {
			continue // the account is gone; the relationship goes with it
		}
		if err != nil {
			return sent, time.Time{}, err
		}
		today := core.Today(now, loc)
		at, ms := time.Time{}, MilestonesOn(r.StartDate, today)
		if len(ms) > 0 {
			at = core.InstantOf(today, MilestoneTime, loc)
		}
		if len(ms) > 0 && !now.Before(at) {
			ok, err := p.push(ctx, userID, r, today, ms, now)
			if ok {
				sent++
			}
			if err != nil {
				return sent, time.Time{}, err
			}
			at = time.Time{} // today's is done: the next date's morning
		}
		if at.IsZero() {
			m := MilestonesFrom(r.StartDate, today.AddDays(1), 1)[0]
			at = core.InstantOf(m.Date, MilestoneTime, loc)
		}
		if next.IsZero() || at.Before(next) {
			next = at
		}
	}
	if next.IsZero() { // neither account could be read: look again later
		next = now.Add(MilestoneRetry)
	}
	return sent, next, nil
}

// push claims the user's milestones of their date day and, when this call
// took the claim, sends the push; it reports whether it sent one.
func (p *MilestonePushes) push(ctx context.Context, userID string, r Relationship, day core.Date, ms []Milestone,
	now time.Time) (bool, error) {
	claimed, err := p.milestones.ClaimMilestone(ctx, userID, r.ID, day, now)
	if err != nil || !claimed {
		return false, err
	}
	if err := p.notifier.Notify(ctx, userID, MilestoneCategory, MilestoneText(r.StartDate, ms)); err != nil {
		return false, err
	}
	return true, nil
}

// Listener makes the milestone check of a user's active relationship due
// at once when their timezone changes: their mornings move, and one that
// moved earlier (a timezone further east) would otherwise be missed or
// late.
func (p *MilestonePushes) Listener() core.Listener {
	return core.Listener{Name: "relationship milestones", Handle: func(ctx context.Context, e core.Event) error {
		if tz, ok := e.(core.TimezoneChanged); ok {
			return p.recheck(ctx, tz.UserID)
		}
		return nil
	}}
}

func (p *MilestonePushes) recheck(ctx context.Context, userID string) error {
	partnershipID, _, paired, err := p.partnerships.PartnershipOf(ctx, userID)
	if err != nil || !paired {
		return err
	}
	r, err := p.repo.Latest(ctx, partnershipID)
	if core.IsKind(err, core.KindNotFound) || (err == nil && !r.Active) {
		return nil
	}
	if err != nil {
		return err
	}
	return p.milestones.RecheckMilestones(ctx, r.ID, p.clock.Now())
}
