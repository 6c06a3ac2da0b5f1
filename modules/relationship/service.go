package relationship

import (
	"context"
	"strings"

	"tandem/core"
)

// LiveChanged is the live event of a relationship started or ended by a
// partner: both partners hear of it, each with the duration their own GET
// shows (days counted to their own today). A relationship ended because
// the partnership ended is not announced: neither may read it any more
// (partnership.ended tells them).
const LiveChanged = "relationship.changed"

// ActivityRelationshipStarted is the partner activity of a relationship
// started by the other partner.
const ActivityRelationshipStarted = "relationshipStarted"

// Service holds every relationship rule of the API (docs/api.md).
type Service struct {
	repo         Repository
	partnerships Partnerships
	users        Users
	notifier     Notifier
	bus          core.Publisher
	clock        core.Clock
	ids          core.IDs
}

// NewService is a plain constructor, usable without fx.
func NewService(repo Repository, partnerships Partnerships, users Users, notifier Notifier, bus core.Publisher,
	clock core.Clock, ids core.IDs) *Service {
	return &Service{repo: repo, partnerships: partnerships, users: users, notifier: notifier, bus: bus, clock: clock, ids: ids}
}

// Get returns the couple's relationship as the caller sees it: the active one,
// else the most recently ended one.
func (s *Service) Get(ctx context.Context, userID string) (Duration, error) {
	partnershipID, _, err := s.partnership(ctx, userID)
	if err != nil {
		return Duration{}, err
	}
	r, err := s.latest(ctx, partnershipID)
	if core.IsKind(err, core.KindNotFound) {
		return Duration{}, errNoRelationship()
	}
	if err != nil {
		return Duration{}, err
	}
	return s.durationFor(ctx, userID, r)
}

// Start begins the couple's relationship on date (YYYY-MM-DD, not after the
// caller's today). Either partner may start it; while one is active, starting
// again is a 409 conflict: end it first. Both partners hear of it
// (LiveChanged) and the other one is notified (ActivityRelationshipStarted).
func (s *Service) Start(ctx context.Context, userID, date string) (Duration, error) {
	if strings.TrimSpace(date) == "" {
		return Duration{}, core.Invalid("invalid_request", "relationship.dateRequiredYYYYMMDD", "date is required (YYYY-MM-DD)")
	}
	start, err := core.ParseDate(date)
	if err != nil {
		return Duration{}, err
	}
	partnershipID, partnerID, err := s.partnership(ctx, userID)
	if err != nil {
		return Duration{}, err
	}
	today, err := s.today(ctx, userID)
	if err != nil {
		return Duration{}, err
	}
	if start.After(today) {
		return Duration{}, errFuture()
	}
	now := s.clock.Now()
	r := Relationship{ID: s.ids.New(), PartnershipID: partnershipID, Members: members(userID, partnerID),
		StartDate: start, Active: true, CreatedAt: now, UpdatedAt: now}
	cs, err := s.changesFor(ctx, userID, partnerID, r)
	if err != nil {
		return Duration{}, err
	}
	err = core.WriteWithChanges(ctx, s.bus, cs, func(ctx context.Context) error { return s.repo.Start(ctx, r) })
	if core.IsKind(err, core.KindConflict) {
		return Duration{}, core.Conflict("conflict", "relationship.relationshipAlreadyActiveEnd", "a relationship is already active; end it first")
	}
	if err != nil {
		return Duration{}, err
	}
	if partnerID, ok := s.announce(ctx, userID, r); ok {
		_ = s.notifier.NotifyActivity(ctx, partnerID, userID, ActivityRelationshipStarted) // reported by the adapter
	}
	return r.DurationOn(today), nil
}

// End ends the couple's active relationship on date, or on the caller's
// today when date is "". The date may not be in the future nor before the
// start; a default today that is still before the start (a partner further
// east started it) ends it on the start date. Both partners hear of it
// (LiveChanged).
func (s *Service) End(ctx context.Context, userID, date string) (Duration, error) {
	var on core.Date
	if strings.TrimSpace(date) != "" {
		d, err := core.ParseDate(date)
		if err != nil {
			return Duration{}, err
		}
		on = d
	}
	partnershipID, partnerID, err := s.partnership(ctx, userID)
	if err != nil {
		return Duration{}, err
	}
	r, err := s.repo.Latest(ctx, partnershipID)
	if core.IsKind(err, core.KindNotFound) || (err == nil && !r.Active) {
		return Duration{}, errNoActive()
	}
	if err != nil {
		return Duration{}, err
	}
	today, err := s.today(ctx, userID)
	if err != nil {
		return Duration{}, err
	}
	switch {
	case on.IsZero():
		on = latest(today, r.StartDate)
	case on.After(today):
		return Duration{}, errFuture()
	case on.Before(r.StartDate):
		return Duration{}, core.Invalid("invalid_date", "relationship.endDateNotBeforeStart", "the end date must not be before the start date %s", r.StartDate)
	}
	now := s.clock.Now()
	ended := r // what End makes of it (Repository.End), in the feed with it
	ended.Active, ended.EndDate, ended.UpdatedAt = false, on, now
	cs, err := s.changesFor(ctx, userID, partnerID, ended)
	if err != nil {
		return Duration{}, err
	}
	err = core.WriteWithChanges(ctx, s.bus, cs, func(ctx context.Context) (err error) {
		ended, err = s.repo.End(ctx, r.ID, on, now)
		return err
	})
	if core.IsKind(err, core.KindNotFound) {
		return Duration{}, errNoActive() // ended meanwhile by the partner
	}
	if err != nil {
		return Duration{}, err
	}
	s.announce(ctx, userID, ended)
	return ended.DurationOn(today), nil
}

// changesFor are the feed's puts of r for both partners, each with the
// duration their own GET shows (days to their own today). The record is
// the couple's one relationship as each reads it, so its id in the feed is
// the reader's own user id: a relationship started after an ended one
// replaces it, as GET .../relationship does.
func (s *Service) changesFor(ctx context.Context, userID, partnerID string, r Relationship) ([]core.Change, error) {
	cs := make([]core.Change, 0, 2)
	for _, u := range [2]string{userID, partnerID} {
		today, err := s.today(ctx, u)
		if err != nil {
			return nil, err
		}
		cs = append(cs, core.Put(u, core.ChangeRelationship, u, r.DurationOn(today)))
	}
	return core.Through(r.PartnershipID, cs...), nil // the couple's: none once it ended
}

// announce tells both partners of r, just stored, each with their own
// duration of it, and returns the partner it told. The partnership is
// resolved again after the write: when it is no longer r's (the couple
// unpaired meanwhile), neither may read r and nobody hears of it. A
// partner whose timezone cannot be read is left out.
func (s *Service) announce(ctx context.Context, userID string, r Relationship) (partnerID string, ok bool) {
	ctx, cancel := core.AfterCommit(ctx) // the write stands: never wait on a hung store for its news
	defer cancel()
	partnershipID, partnerID, paired, err := s.partnerships.PartnershipOf(ctx, userID)
	if err != nil || !paired || partnershipID != r.PartnershipID {
		return "", false
	}
	readers := map[string]any{}
	for _, u := range [2]string{userID, partnerID} {
		if today, err := s.today(ctx, u); err == nil {
			readers[u] = r.DurationOn(today)
		}
	}
	if len(readers) > 0 {
		s.bus.Publish(ctx, core.Live{Type: LiveChanged, For: readers})
	}
	return partnerID, true
}

// Listener ends the active relationship of a partnership that ended.
func (s *Service) Listener() core.Listener {
	return core.Listener{Name: "relationship", Handle: func(ctx context.Context, e core.Event) error {
		if ended, ok := e.(core.PartnershipEnded); ok {
			return s.partnershipEnded(ctx, ended.PartnershipID)
		}
		return nil
	}}
}

// partnershipEnded ends the partnership's active relationship on today's UTC
// date (the event belongs to no one timezone), never before its start.
func (s *Service) partnershipEnded(ctx context.Context, partnershipID string) error {
	r, err := s.repo.Latest(ctx, partnershipID)
	if core.IsKind(err, core.KindNotFound) || (err == nil && !r.Active) {
		return nil
	}
	if err != nil {
		return err
	}
	now := s.clock.Now()
	_, err = s.repo.End(ctx, r.ID, latest(core.Today(now, nil), r.StartDate), now)
	if core.IsKind(err, core.KindNotFound) {
		return nil // ended meanwhile
	}
	return err
}

// Section, ExportUser and PurgeUser make the module a core.UserData owner.
func (s *Service) Section() string { return "relationship" }

// ExportedRelationship is one relationship the user was part of, with the
// other member.
type ExportedRelationship struct {
	Relationship
	PartnerID string
}

// ExportUser returns every relationship the user was part of, newest first.
func (s *Service) ExportUser(ctx context.Context, userID string) (any, error) {
	rs, err := s.repo.ListByUser(ctx, userID)
	if err != nil {
		return nil, err
	}
	out := make([]ExportedRelationship, 0, len(rs))
	for _, r := range rs {
		e := ExportedRelationship{Relationship: r, PartnerID: r.Members[0]}
		if e.PartnerID == userID {
			e.PartnerID = r.Members[1]
		}
		out = append(out, e)
	}
	return out, nil
}

// PurgeUser deletes the relationships the user was part of: they are the
// couple's shared record, and the user leaving takes it along.
func (s *Service) PurgeUser(ctx context.Context, userID string) error {
	return s.repo.DeleteByUser(ctx, userID)
}

// partnership is the caller's current partnership, 409 not_paired without one.
// latest is the partnership's relationship (Repository.Latest), asked once
// per read memo: the duration and the milestones read the same one.
func (s *Service) latest(ctx context.Context, partnershipID string) (Relationship, error) {
	return core.Memo(ctx, latestKey(partnershipID), func() (Relationship, error) {
		return s.repo.Latest(ctx, partnershipID)
	})
}

func latestKey(partnershipID string) string { return "relationship.latest:" + partnershipID }

// Remember records r (ok false: none) as the request's read memo answer for
// the partnership's relationship (Repository.Latest): a batch read (the
// home screen's) answers at once the duration and the milestones. Without
// a memo it does nothing.
func Remember(ctx context.Context, partnershipID string, r Relationship, ok bool) {
	if !ok {
		core.Remember(ctx, latestKey(partnershipID), Relationship{}, core.NotFound("not_found", "memory.noRelationship", "no relationship"))
		return
	}
	core.Remember(ctx, latestKey(partnershipID), r, nil)
}

func (s *Service) partnership(ctx context.Context, userID string) (string, string, error) {
	id, partnerID, ok, err := s.partnerships.PartnershipOf(ctx, userID)
	if err != nil {
		return "", "", err
	}
	if !ok {
		return "", "", errNotPaired()
	}
	return id, partnerID, nil
}

// today is the caller's date in their own timezone (UTC when unset).
func (s *Service) today(ctx context.Context, userID string) (core.Date, error) {
	loc, err := s.users.Location(ctx, userID)
	if err != nil {
		return core.Date{}, err
	}
	return core.Today(s.clock.Now(), loc), nil
}

func (s *Service) durationFor(ctx context.Context, userID string, r Relationship) (Duration, error) {
	today, err := s.today(ctx, userID)
	if err != nil {
		return Duration{}, err
	}
	return r.DurationOn(today), nil
}

func latest(a, b core.Date) core.Date {
	if a.After(b) {
		return a
	}
	return b
}

// LostWith is the delete, for reader, of the couple's relationship (keyed
// by the reader's id in the feed): without a partner, GET .../relationship
// reads none (core.SharedData).
func (s *Service) LostWith(ctx context.Context, partnershipID, reader, _ string) ([]core.Change, error) {
	_, err := s.repo.Latest(ctx, partnershipID)
	if core.IsKind(err, core.KindNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return []core.Change{core.Delete(reader, core.ChangeRelationship, reader)}, nil
}
