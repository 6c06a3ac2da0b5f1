package memory

import (
	"context"
	"slices"
	"sync"
	"time"

	"tandem/core"
	"tandem/modules/events"
)

var _ events.Repository = (*EventRepo)(nil)

// EventRepo keeps events in a table, and each user's in list order (byUser,
// the index a list or a date range reads a slice of, as SQL reads
// idx_events_user_start). Its table copies on the way in and out so
// callers can never alias stored state (Participants included).
type EventRepo struct {
	mu     sync.RWMutex
	byID   table[string, events.Event]
	byUser map[string][]eventKey // in events.ListOrder
}

// eventKey is an event's place in its user's list: the order's fields
// only, so the index costs a few words per event, not a second copy.
type eventKey struct {
	start core.Date
	id    string
}

func keyOf(e events.Event) eventKey { return eventKey{start: e.StartDate, id: e.ID} }

func (k eventKey) compare(o eventKey) int {
	return events.ListOrder(events.Event{StartDate: k.start, ID: k.id}, events.Event{StartDate: o.start, ID: o.id})
}

func NewEventRepo() *EventRepo {
	return &EventRepo{byID: newTable[string, events.Event](conflict("memory.alreadyExists", "already exists"),
		notFound("memory.noSuchEvent", "no such event")).cloned(cloneEvent),
		byUser: map[string][]eventKey{}}
}

// index places e in its user's list; unindex takes it out.
func (r *EventRepo) index(e events.Event) {
	list := r.byUser[e.UserID]
	i, _ := slices.BinarySearchFunc(list, keyOf(e), eventKey.compare)
	r.byUser[e.UserID] = slices.Insert(list, i, keyOf(e))
}

func (r *EventRepo) unindex(e events.Event) {
	list := r.byUser[e.UserID]
	if i, ok := slices.BinarySearchFunc(list, keyOf(e), eventKey.compare); ok {
		r.byUser[e.UserID] = slices.Delete(list, i, i+1)
	}
}

func cloneEvent(e events.Event) events.Event {
	e.Participants = append([]string{}, e.Participants...)
	return e
}

func (r *EventRepo) Create(_ context.Context, e events.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.byID.insert(e.ID, e); err != nil {
		return err
	}
	r.index(e)
	return nil
}

func (r *EventRepo) Get(_ context.Context, id string) (events.Event, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.byID.find(id)
}

func (r *EventRepo) List(_ context.Context, userID string, page core.Page) ([]events.Event, string, error) {
	var after *events.Cursor
	if page.Cursor != "" {
		c, err := events.ParseCursor(page.Cursor)
		if err != nil {
			return nil, "", err
		}
		after = &c
	}
	r.mu.RLock()
	list := r.byUser[userID]
	from := 0
	if after != nil {
		from, _ = slices.BinarySearchFunc(list, *after, func(k eventKey, c events.Cursor) int {
			if c.After(events.Event{StartDate: k.start, ID: k.id}) {
				return 1
			}
			return -1
		})
	}
	all := make([]events.Event, 0, min(len(list)-from, page.Size()+1))
	for _, k := range list[from:min(len(list), from+page.Size()+1)] {
		e, _ := r.byID.get(k.id)
		all = append(all, e)
	}
	r.mu.RUnlock()
	evs, next := events.PageOf(all, page)
	return evs, next, nil
}

func (r *EventRepo) Overlapping(_ context.Context, userIDs []string, from, to core.Date) ([]events.Event, error) {
	all := []events.Event{}
	for _, id := range userIDs {
		all = append(all, r.userEvents(id, func(e events.Event) bool { return e.Overlaps(from, to) })...)
	}
	slices.SortFunc(all, events.ListOrder)
	if len(all) > core.MaxListItems {
		all = all[:core.MaxListItems]
	}
	return all, nil
}

func (r *EventRepo) Next(_ context.Context, userIDs []string, from, to core.Date) (events.Event, bool, error) {
	var next events.Event
	found := false
	for _, id := range userIDs {
		for _, e := range r.userEvents(id, func(e events.Event) bool { return e.Overlaps(from, to) }) {
			if !found || events.NextOrder(e, next) < 0 {
				next, found = e, true
			}
		}
	}
	return next, found, nil
}

// userEvents returns copies of the user's events that keep, in list order.
func (r *EventRepo) userEvents(userID string, keep func(events.Event) bool) []events.Event {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := []events.Event{}
	for _, k := range r.byUser[userID] {
		if e, _ := r.byID.get(k.id); keep(e) {
			out = append(out, e)
		}
	}
	return out
}

func (r *EventRepo) Update(_ context.Context, id string, fn func(e *events.Event) error) (events.Event, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old, err := r.byID.find(id)
	if err != nil {
		return events.Event{}, err
	}
	e, err := r.byID.update(id, func(e *events.Event) error {
		err := fn(e)
		e.ID, e.UserID, e.CreatedAt = old.ID, old.UserID, old.CreatedAt
		return err
	})
	if err != nil {
		return events.Event{}, err
	}
	r.unindex(old)
	r.index(e)
	return e, nil
}

func (r *EventRepo) Delete(_ context.Context, userID, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, err := r.byID.findIf(id, func(e events.Event) bool { return e.UserID == userID })
	if err != nil {
		return err
	}
	r.byID.delete(id)
	r.unindex(e)
	return nil
}

func (r *EventRepo) DeleteByUser(_ context.Context, userID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range r.byUser[userID] {
		r.byID.delete(k.id)
	}
	delete(r.byUser, userID)
	return nil
}

func (r *EventRepo) DueReminders(_ context.Context, now time.Time, limit int) ([]events.Event, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	due := r.byID.scan(func(e events.Event) bool { return !e.RemindAt.IsZero() && !e.RemindAt.After(now) },
		func(a, b events.Event) int { return a.RemindAt.Compare(b.RemindAt) })
	return due[:min(limit, len(due))], nil
}

func (r *EventRepo) ClaimReminder(_ context.Context, id string, at time.Time) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.byID.get(id)
	if !ok || e.RemindAt.IsZero() || !e.RemindAt.Equal(at) {
		return false, nil
	}
	e.RemindAt = time.Time{} // not in the list order: the index stands
	r.byID.put(id, e)
	return true, nil
}
