package events

import (
	"context"
	"strings"

	"tandem/core"
)

// The live events of calendar events: the owner hears of each, and so does
// the current partner, who may read the owner's events; each with the event
// as their own single read shows it (a Read), or a core.Deleted.
const (
	LiveCreated = "event.created"
	LiveUpdated = "event.updated"
	LiveDeleted = "event.deleted"
)

// The partner activity of an event added or changed: the partner may read
// it, and hears that it happened, never its title.
const (
	ActivityEventAdded   = "eventAdded"
	ActivityEventChanged = "eventChanged"
)

// Service holds every calendar-event rule of the API (docs/api.md).
type Service struct {
	repo     Repository
	partners Partners
	users    Users
	notifier PartnerNotifier
	bus      core.Publisher
	limiter  core.Limiter
	budget   core.WriteBudget
	clock    core.Clock
	ids      core.IDs
}

// NewService is a plain constructor, usable without fx.
func NewService(repo Repository, partners Partners, users Users, notifier PartnerNotifier, bus core.Publisher,
	limiter core.Limiter, settings Settings, clock core.Clock, ids core.IDs) *Service {
	return &Service{repo: repo, partners: partners, users: users, notifier: notifier, bus: bus, limiter: limiter,
		budget: settings.Budget.Or(DefaultBudget), clock: clock, ids: ids}
}

// announce tells the owner and the current partner of a change to the
// owner's event, after it was stored; record is what each one's single read
// shows (partner: the partner's), and activity, unless "", what the partner
// is notified of. The partner is resolved now, after the write, so an
// ex-partner never hears of it; when that lookup fails only the owner does.
func (s *Service) announce(ctx context.Context, typ, ownerID string, record func(partner bool) any, activity string) {
	ctx, cancel := core.AfterCommit(ctx) // the write stands: never wait on a hung store for its news
	defer cancel()
	readers := map[string]any{ownerID: record(false)}
	partnerID, paired, err := s.partners.PartnerOf(ctx, ownerID)
	paired = err == nil && paired
	if paired {
		readers[partnerID] = record(true)
	}
	s.bus.Publish(ctx, core.Live{Type: typ, For: readers})
	if paired && activity != "" {
		_ = s.notifier.NotifyActivity(ctx, partnerID, ownerID, activity) // reported by the adapter; the event stands
	}
}

// changesFor are the feed's changes of the owner's event id for its
// readers: the owner and the current partner, resolved before the write
// (the feed records them in the write's transaction). record(partner) is
// the reader's record, as for announce.
func (s *Service) changesFor(ctx context.Context, ownerID, id string, record func(partner bool) any) ([]core.Change, error) {
	cs := []core.Change{changeOf(ownerID, id, record(false))}
	pid, partnerID, paired, err := s.partners.PartnershipOf(ctx, ownerID)
	if err != nil {
		return nil, err
	}
	if paired { // read through the partnership: none once it ended
		cs = append(cs, core.Through(pid, changeOf(partnerID, id, record(true)))...)
	}
	return cs, nil
}

func changeOf(reader, id string, rec any) core.Change {
	if _, gone := rec.(core.Deleted); gone {
		return core.Delete(reader, core.ChangeEvent, id)
	}
	return core.Put(reader, core.ChangeEvent, id, rec)
}

// readOf is the record of e for its readers.
func readOf(e Event) func(partner bool) any {
	return func(partner bool) any { return Read{Event: e, Partner: partner} }
}

// Create stores a new event of the user; title and startDate are required
// (see Draft for the defaults). A valid event spends one of the user's
// write budget first (CreatesPerMinute, CreatesPerDay): beyond it, 429
// rate_limited with Retry-After and nothing stored. The owner and the
// current partner hear of it (LiveCreated), and the partner is notified
// (ActivityEventAdded).
func (s *Service) Create(ctx context.Context, userID string, d Draft) (Event, error) {
	if err := requireID("userId", userID); err != nil {
		return Event{}, err
	}
	e, err := d.event()
	if err != nil {
		return Event{}, err
	}
	if err := s.budget.Spend(ctx, s.limiter, userID); err != nil {
		return Event{}, err
	}
	now := s.clock.Now()
	e.ID, e.UserID, e.CreatedAt, e.UpdatedAt = s.ids.New(), userID, now, now
	loc, err := s.users.Location(ctx, userID)
	if err != nil {
		return Event{}, err
	}
	e.RemindAt = schedule(e, loc, now)
	cs, err := s.changesFor(ctx, userID, e.ID, readOf(e))
	if err != nil {
		return Event{}, err
	}
	if err := core.WriteWithChanges(ctx, s.bus, cs, func(ctx context.Context) error { return s.repo.Create(ctx, e) }); err != nil {
		return Event{}, err
	}
	s.announce(ctx, LiveCreated, userID, readOf(e), ActivityEventAdded)
	return e, nil
}

// List returns the user's own events by date (start date, then id) and the
// cursor of the next page, if any.
func (s *Service) List(ctx context.Context, userID string, page core.Page) ([]Event, string, error) {
	if err := requireID("userId", userID); err != nil {
		return nil, "", err
	}
	if page.Cursor != "" {
		if _, err := ParseCursor(page.Cursor); err != nil {
			return nil, "", err
		}
	}
	evs, next, err := s.repo.List(ctx, userID, page)
	if err != nil {
		return nil, "", err
	}
	if evs == nil {
		evs = []Event{}
	}
	return evs, next, nil
}

// Get returns one event the user may read: their own, or their current
// partner's (partner true). Anyone else's is event_not_found, as if it did
// not exist. The partner is consulted only for an event that is not the
// user's own.
func (s *Service) Get(ctx context.Context, userID, id string) (e Event, partner bool, err error) {
	if err := requireIDs(userID, id); err != nil {
		return Event{}, false, err
	}
	e, err = s.repo.Get(ctx, id)
	if err != nil {
		return Event{}, false, notFound(err)
	}
	if e.UserID == userID {
		return e, false, nil
	}
	partnerID, ok, err := s.partners.PartnerOf(ctx, userID)
	if err != nil {
		return Event{}, false, err
	}
	if !ok || partnerID != e.UserID {
		return Event{}, false, errNotFound()
	}
	return e, true, nil
}

// Update changes the given fields of the user's own event and returns it
// complete. Only the owner may: the partner's event is event_not_found too.
// The fields are checked together (a new startDate must still be on or
// before endDate), all or nothing. The owner and the current partner hear
// of it (LiveUpdated), and the partner is notified (ActivityEventChanged).
func (s *Service) Update(ctx context.Context, userID, id string, p Patch) (Event, error) {
	if err := requireIDs(userID, id); err != nil {
		return Event{}, err
	}
	if p.empty() {
		return Event{}, core.InvalidRequest("events.sendLeastOneEventField", "send at least one event field to change")
	}
	now := s.clock.Now()
	loc, err := s.users.Location(ctx, userID)
	if err != nil {
		return Event{}, err
	}
	var updated Event // what the update made, in the feed with it (rendered in its transaction)
	cs, err := s.changesFor(ctx, userID, id, func(partner bool) any {
		return func() any { return Read{Event: updated, Partner: partner} }
	})
	if err != nil {
		return Event{}, err
	}
	var e Event
	err = core.WriteWithChanges(ctx, s.bus, cs, func(ctx context.Context) (err error) {
		e, err = s.repo.Update(ctx, id, func(e *Event) error {
			if e.UserID != userID {
				return errNotFound()
			}
			next, err := p.apply(*e)
			if err != nil {
				return err
			}
			next.UpdatedAt = now
			next.RemindAt = schedule(next, loc, now)
			*e, updated = next, next
			return nil
		})
		return err
	})
	if err != nil {
		return Event{}, notFound(err)
	}
	s.announce(ctx, LiveUpdated, userID, readOf(e), ActivityEventChanged)
	return e, nil
}

// Delete removes the user's own event for good; the owner and the current
// partner, who could read it, hear of it (LiveDeleted).
func (s *Service) Delete(ctx context.Context, userID, id string) error {
	if err := requireIDs(userID, id); err != nil {
		return err
	}
	cs, err := s.changesFor(ctx, userID, id, func(bool) any { return core.Deleted{ID: id} })
	if err != nil {
		return err
	}
	if err := core.WriteWithChanges(ctx, s.bus, cs, func(ctx context.Context) error { return s.repo.Delete(ctx, userID, id) }); err != nil {
		return notFound(err)
	}
	s.announce(ctx, LiveDeleted, userID, func(bool) any { return core.Deleted{ID: id} }, "")
	return nil
}

// DateRange splits the events of the user and of the current partner that
// touch from..to into exact matches (same start and end as the request) and
// the other overlapping ones; both bounds are inclusive.
func (s *Service) DateRange(ctx context.Context, userID string, from, to core.Date) (RangeReport, error) {
	if from.After(to) {
		return RangeReport{}, core.InvalidRequest("events.startDateNotAfterEndDate", "startDate must not be after endDate")
	}
	if err := requireID("userId", userID); err != nil {
		return RangeReport{}, err
	}
	users := []string{userID}
	partnerID, ok, err := s.partners.PartnerOf(ctx, userID)
	if err != nil {
		return RangeReport{}, err
	}
	if ok {
		users = append(users, partnerID)
	}
	found, err := s.repo.Overlapping(ctx, users, from, to)
	if err != nil {
		return RangeReport{}, err
	}
	return buildReport(from, to, userID, found), nil
}

// Next is the first event of the user and of the current partner that
// touches from..from+days, in NextOrder: the home screen's next event (an
// event under way counts). ok is false when there is none. It reads one
// event per partner, however many the couple keeps: the date range of the
// same days read and rendered all of them (up to core.MaxListItems) to
// show one, and a home call cost more with every event of the year ahead.
func (s *Service) Next(ctx context.Context, userID string, from core.Date, days int) (Found, bool, error) {
	if err := requireID("userId", userID); err != nil {
		return Found{}, false, err
	}
	users := []string{userID}
	partnerID, ok, err := s.partners.PartnerOf(ctx, userID)
	if err != nil {
		return Found{}, false, err
	}
	if ok {
		users = append(users, partnerID)
	}
	e, ok, err := s.repo.Next(ctx, users, from, from.AddDays(days))
	if err != nil || !ok {
		return Found{}, false, err
	}
	return Found{Event: e, Partner: e.UserID != userID}, true, nil
}

// Section, ExportUser and PurgeUser make the module a core.UserData owner.
func (s *Service) Section() string { return "events" }

// ExportUser returns every event of the user by date, however many: it
// reads them page by page. The partner's events are theirs, not exported.
func (s *Service) ExportUser(ctx context.Context, userID string) (any, error) {
	list := func(p core.Page) ([]Event, string, error) { return s.repo.List(ctx, userID, p) }
	return core.EveryPage(list, func(e Event) Event { return e })
}

// PurgeUser deletes every event of the user. Their id may stay in the
// participants of other users' events: it is a label there, never access.
func (s *Service) PurgeUser(ctx context.Context, userID string) error {
	return s.repo.DeleteByUser(ctx, userID)
}

func requireID(field, v string) error {
	if strings.TrimSpace(v) == "" {
		return core.Required(field)
	}
	return nil
}

func requireIDs(userID, eventID string) error {
	if err := requireID("userId", userID); err != nil {
		return err
	}
	return requireID("eventId", eventID)
}

// notFound gives a repository's not-found the spec's code; other errors
// (an invalid patch, a database failure) pass unchanged.
func notFound(err error) error {
	if core.IsKind(err, core.KindNotFound) {
		return errNotFound()
	}
	return err
}

// LostWith are the deletes, for reader, of the ex-partner's events, which
// reader read only while partnered (core.SharedData).
func (s *Service) LostWith(ctx context.Context, _, reader, exPartner string) ([]core.Change, error) {
	return s.eventsOf(ctx, exPartner, func(e Event) core.Change { return core.Delete(reader, core.ChangeEvent, e.ID) })
}

// GainedWith are the puts, for reader, of the new partner's events, each
// as reader's single read shows it (isPartnerEvent): a partner reads all
// of them, from before the pairing too (core.GainedData).
func (s *Service) GainedWith(ctx context.Context, _, reader, partner string) ([]core.Change, error) {
	return s.eventsOf(ctx, partner, func(e Event) core.Change {
		return core.Put(reader, core.ChangeEvent, e.ID, Read{Event: e, Partner: true})
	})
}

// eventsOf is change of each of the owner's events, page by page.
func (s *Service) eventsOf(ctx context.Context, ownerID string, change func(Event) core.Change) ([]core.Change, error) {
	list := func(p core.Page) ([]Event, string, error) { return s.repo.List(ctx, ownerID, p) }
	return core.EveryPage(list, change)
}
