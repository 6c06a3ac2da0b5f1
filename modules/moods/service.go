package moods

import (
	"context"
	"slices"
	"strings"

	"tandem/core"
)

// ActivityMoodShared is the partner activity of a check-in, new or
// replaced: the notifications module files it under category mood.
const ActivityMoodShared = "moodShared"

// The live events of moods, to the owner and the partner who reads the
// mood (the one of the partnership it was checked in within), with the mood
// as both read it.
const (
	LiveCreated = "mood.created" // the day's first check-in
	LiveUpdated = "mood.updated" // a later check-in of the same day replaced it
)

// Service holds every mood rule.
type Service struct {
	repo     Repository
	users    Users
	partners Partnerships
	notifier Notifier
	bus      core.Publisher
	limiter  core.Limiter
	budget   core.WriteBudget
	clock    core.Clock
	ids      core.IDs
}

// NewService is a plain constructor, usable without fx.
func NewService(repo Repository, users Users, partners Partnerships, notifier Notifier, bus core.Publisher,
	limiter core.Limiter, settings Settings, clock core.Clock, ids core.IDs) *Service {
	return &Service{repo: repo, users: users, partners: partners, notifier: notifier, bus: bus, limiter: limiter,
		budget: settings.Budget.Or(DefaultBudget), clock: clock, ids: ids}
}

// CheckIn records how the user feels today, today being the date in their
// profile timezone (UTC when unset). A second check-in of the same day
// replaces the first in place: same id and createdAt, the new mood and note
// (an absent note clears the old one), a new updatedAt. The mood belongs to
// the user's current partnership, if any, whose partner hears of it
// (category mood, coalesced: several check-ins in a row make one counted
// entry and at most one push per 10 minutes). The notification comes after
// the write and never fails it (see Notifier). A valid check-in spends one
// of the user's write budget first (CheckInsPerMinute, CheckInsPerDay):
// beyond it, 429 rate_limited with Retry-After and nothing written.
func (s *Service) CheckIn(ctx context.Context, userID string, d Draft) (Mood, error) {
	if err := requireID(userID); err != nil {
		return Mood{}, err
	}
	level, note, err := d.parse()
	if err != nil {
		return Mood{}, err
	}
	if err := s.budget.Spend(ctx, s.limiter, userID); err != nil {
		return Mood{}, err
	}
	loc, err := s.users.Location(ctx, userID)
	if err != nil {
		return Mood{}, err
	}
	pid, partnerID, paired, err := s.partners.PartnershipOf(ctx, userID)
	if err != nil {
		return Mood{}, err
	}
	if !paired {
		pid = ""
	}
	now := s.clock.Now()
	m := Mood{ID: s.ids.New(), UserID: userID, Level: level, Note: note, Date: core.Today(now, loc), PartnershipID: pid,
		CreatedAt: now, UpdatedAt: now}
	// the feed: the owner's and the partner's of the partnership the mood
	// belongs to (the one resolved above), with the mood the put stored
	// (today's, whose id an earlier check-in of the day may have given)
	var stored Mood
	made := func() (string, any) { return stored.ID, stored }
	cs := []core.Change{core.PutMade(userID, core.ChangeMood, made)}
	if pid != "" {
		cs = append(cs, core.Through(pid, core.PutMade(partnerID, core.ChangeMood, made))...)
	}
	err = core.WriteWithChanges(ctx, s.bus, cs, func(ctx context.Context) (err error) {
		_, err = s.repo.Put(ctx, m, func(made Mood) { stored = made })
		return err
	})
	if err != nil {
		return Mood{}, err
	}
	typ := LiveCreated
	if stored.ID != m.ID {
		typ = LiveUpdated
	}
	s.announce(ctx, typ, stored)
	return stored, nil
}

// announce tells the owner's open apps and the partner of the partnership
// the mood belongs to, resolved again after the write, so that an
// ex-partner (or a new one) never hears of it; when that lookup fails only
// the owner does.
func (s *Service) announce(ctx context.Context, typ string, m Mood) {
	ctx, cancel := core.AfterCommit(ctx) // the write stands: never wait on a hung store for its news
	defer cancel()
	readers := map[string]any{m.UserID: m}
	pid, partnerID, paired, err := s.partners.PartnershipOf(ctx, m.UserID)
	shared := err == nil && paired && pid == m.PartnershipID
	if shared {
		readers[partnerID] = m
	}
	s.bus.Publish(ctx, core.Live{Type: typ, For: readers})
	if shared {
		_ = s.notifier.NotifyActivity(ctx, partnerID, m.UserID, ActivityMoodShared) // reported by the adapter; the mood stands
	}
}

// Listing is a list's answer: the span it covers (q resolved) and the moods
// of the caller and of their current partner dated within it, in
// ListOrder.
type Listing struct {
	Span  Span
	Moods []Mood // never nil
}

// List returns the caller's moods and their current partner's dated within
// q (see Query.Span; by default the caller's last 30 local days), by date
// and, on one date, the caller's first. Of the partner's moods only those
// checked in within the current partnership are listed: a former partner's
// never, and none from before the two paired.
func (s *Service) List(ctx context.Context, userID string, q Query) (Listing, error) {
	if err := requireID(userID); err != nil {
		return Listing{}, err
	}
	loc, err := s.users.Location(ctx, userID)
	if err != nil {
		return Listing{}, err
	}
	span, err := q.Span(core.Today(s.clock.Now(), loc))
	if err != nil {
		return Listing{}, err
	}
	out, err := s.repo.Range(ctx, userID, "", span.From, span.To)
	if err != nil {
		return Listing{}, err
	}
	pid, partnerID, paired, err := s.partners.PartnershipOf(ctx, userID)
	if err != nil {
		return Listing{}, err
	}
	if paired {
		theirs, err := s.repo.Range(ctx, partnerID, pid, span.From, span.To)
		if err != nil {
			return Listing{}, err
		}
		out = append(out, theirs...)
	}
	if out == nil {
		out = []Mood{}
	}
	slices.SortFunc(out, ListOrder(userID))
	return Listing{Span: span, Moods: out}, nil
}

// Today returns the moods of the home screen: the caller's of their own
// today and their current partner's of the partner's own today (the two
// dates differ when their timezones put them on different days), each nil
// when not checked in yet; partner is nil too while unpaired, and for a
// mood the partner checked in before the two paired.
func (s *Service) Today(ctx context.Context, userID string) (mine, partner *Mood, err error) {
	if err := requireID(userID); err != nil {
		return nil, nil, err
	}
	mineOn, err := s.todayOf(ctx, userID, "")
	if err != nil {
		return nil, nil, err
	}
	keys := []DayKey{mineOn}
	pid, partnerID, paired, err := s.partners.PartnershipOf(ctx, userID)
	if err != nil {
		return nil, nil, err
	}
	if paired {
		theirsOn, err := s.todayOf(ctx, partnerID, pid)
		switch {
		case err == nil:
			keys = append(keys, theirsOn)
		case !core.IsKind(err, core.KindNotFound): // not found: the partner's account is going
			return nil, nil, err
		}
	}
	ms, err := s.repo.On(ctx, keys)
	if err != nil {
		return nil, nil, err
	}
	for i := range ms {
		if ms[i].UserID == userID {
			mine = &ms[i]
		} else {
			partner = &ms[i]
		}
	}
	return mine, partner, nil
}

// todayOf is the key of the user's mood of their own today, within
// partnershipID unless it is "".
func (s *Service) todayOf(ctx context.Context, userID, partnershipID string) (DayKey, error) {
	loc, err := s.users.Location(ctx, userID)
	if err != nil {
		return DayKey{}, err
	}
	return DayKey{UserID: userID, PartnershipID: partnershipID, Date: core.Today(s.clock.Now(), loc)}, nil
}

// Section, ExportUser and PurgeUser make the module a core.UserData owner.
func (s *Service) Section() string { return "moods" }

// ExportUser returns every mood of the user, by date: one a day at most, so
// a read of the whole history stays small.
func (s *Service) ExportUser(ctx context.Context, userID string) (any, error) {
	ms, err := s.repo.Range(ctx, userID, "", MinDate, MaxDate)
	if err != nil {
		return nil, err
	}
	if ms == nil {
		ms = []Mood{}
	}
	return ms, nil
}

// PurgeUser deletes every mood of the user.
func (s *Service) PurgeUser(ctx context.Context, userID string) error {
	return s.repo.DeleteByUser(ctx, userID)
}

func requireID(userID string) error {
	if strings.TrimSpace(userID) == "" {
		return core.Required("userId")
	}
	return nil
}

// LostWith are the deletes, for reader, of the ex-partner's moods of the
// partnership, which reader read only through it (core.SharedData).
func (s *Service) LostWith(ctx context.Context, partnershipID, reader, exPartner string) ([]core.Change, error) {
	theirs, err := s.repo.Range(ctx, exPartner, partnershipID, core.Date{Year: 1, Month: 1, Day: 1}, core.Date{Year: 9999, Month: 12, Day: 31})
	if err != nil {
		return nil, err
	}
	out := make([]core.Change, len(theirs))
	for i, m := range theirs {
		out[i] = core.Delete(reader, core.ChangeMood, m.ID)
	}
	return out, nil
}
