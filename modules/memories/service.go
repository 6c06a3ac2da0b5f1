package memories

import (
	"context"
	"strings"

	"tandem/core"
)

// ActivityMemoryAdded is the partner activity of a new memory: the partner
// hears that one was added, never its title (the memory is private).
const ActivityMemoryAdded = "memoryAdded"

// The live events of memories. A memory is private: only its owner reads
// it, so only the owner hears of it (with the memory as their read shows
// it, or a core.Deleted), never the partner.
const (
	LiveCreated = "memory.created"
	LiveUpdated = "memory.updated"
	LiveDeleted = "memory.deleted"
)

// Service holds every memory rule of the API (docs/api.md).
type Service struct {
	repo     Repository
	partners Partners
	notifier Notifier
	limits   Limits
	settings Settings
	bus      core.Publisher
	limiter  core.Limiter
	budget   core.WriteBudget
	clock    core.Clock
	ids      core.IDs
}

// NewService is a plain constructor, usable without fx.
func NewService(repo Repository, partners Partners, notifier Notifier, limits Limits, settings Settings, bus core.Publisher,
	limiter core.Limiter, clock core.Clock, ids core.IDs) *Service {
	return &Service{repo: repo, partners: partners, notifier: notifier, limits: limits, settings: settings, bus: bus,
		limiter: limiter, budget: settings.Budget.Or(DefaultBudget), clock: clock, ids: ids}
}

// announce tells the owner's open apps; record is what the owner's read
// shows (a Memory), or a core.Deleted.
func (s *Service) announce(ctx context.Context, typ, ownerID string, record any) {
	ctx, cancel := core.AfterCommit(ctx) // the write stands: never wait on a hung store for its news
	defer cancel()
	s.bus.Publish(ctx, core.Live{Type: typ, For: map[string]any{ownerID: record}})
}

// Create stores a new memory of the user, announces it to the owner
// (LiveCreated) and tells the current partner (category partnerActivity,
// without the memory); title and date are required. A user who keeps as many memories as their limits allow
// gets 403 limit_reached (counted with the insert, see Repository.Create).
// A valid memory spends one of the user's write budget first
// (CreatesPerMinute, CreatesPerDay): beyond it, 429 rate_limited with
// Retry-After and nothing stored.
// The partner is looked up before anything is written, so a failed lookup
// leaves nothing behind; the notification comes after the commit and cannot
// fail the creation (see Notifier).
func (s *Service) Create(ctx context.Context, userID string, d Draft) (Memory, error) {
	if err := requireID("userId", userID); err != nil {
		return Memory{}, err
	}
	m, err := s.memory(d)
	if err != nil {
		return Memory{}, err
	}
	if err := s.budget.Spend(ctx, s.limiter, userID); err != nil {
		return Memory{}, err
	}
	partnerID, paired, err := s.partners.PartnerOf(ctx, userID)
	if err != nil {
		return Memory{}, err
	}
	limit, err := s.limits.MaxMemories(ctx, userID)
	if err != nil {
		return Memory{}, err
	}
	now := s.clock.Now()
	m.ID, m.UserID, m.CreatedAt, m.UpdatedAt = s.ids.New(), userID, now, now
	put := []core.Change{core.Put(userID, core.ChangeMemory, m.ID, m)} // the owner's only: memories are private
	if err := core.WriteWithChanges(ctx, s.bus, put, func(ctx context.Context) error {
		return s.repo.Create(ctx, s.settings.stored(m), RoomFor(limit))
	}); err != nil {
		return Memory{}, err
	}
	s.announce(ctx, LiveCreated, userID, m)
	if paired {
		_ = s.notifier.NotifyActivity(ctx, partnerID, userID, ActivityMemoryAdded) // reported by the adapter; the memory stands
	}
	return m, nil
}

// memory builds the memory d describes, checked.
func (s *Service) memory(d Draft) (Memory, error) {
	m := Memory{Title: strings.TrimSpace(d.Title), Description: strings.TrimSpace(d.Description)}
	if err := validateText(m.Title, m.Description); err != nil {
		return Memory{}, err
	}
	var err error
	if m.Date, err = ParseDay("date", strings.TrimSpace(d.Date)); err != nil {
		return Memory{}, err
	}
	if err := CheckDay(m.Date, s.clock.Now()); err != nil {
		return Memory{}, err
	}
	if m.Images, err = NormalizeImages(d.Images, s.settings); err != nil {
		return Memory{}, err
	}
	return m, nil
}

// Get returns one of the user's memories; anyone else's, and an unknown id,
// is not_found.
func (s *Service) Get(ctx context.Context, userID, id string) (Memory, error) {
	if err := requireIDs(userID, id); err != nil {
		return Memory{}, err
	}
	m, err := s.repo.Get(ctx, userID, id)
	if err != nil {
		return Memory{}, notFound(err)
	}
	return s.settings.addressed(m), nil
}

// List returns the user's memories, newest date first, and the cursor of the
// next page, if any.
func (s *Service) List(ctx context.Context, userID string, page core.Page) ([]Memory, string, error) {
	return s.list(ctx, userID, AllDates, page)
}

// DateRange returns the user's memories dated from..to (both included), in
// list order and paged like List. start after end is a 400.
func (s *Service) DateRange(ctx context.Context, userID string, from, to core.Date, page core.Page) ([]Memory, string, error) {
	if from.After(to) {
		return nil, "", core.InvalidRequest("events.startDateNotAfterEndDate", "startDate must not be after endDate")
	}
	return s.list(ctx, userID, Span{From: from, To: to}, page)
}

func (s *Service) list(ctx context.Context, userID string, span Span, page core.Page) ([]Memory, string, error) {
	if err := requireID("userId", userID); err != nil {
		return nil, "", err
	}
	if page.Cursor != "" {
		if _, err := ParseCursor(page.Cursor); err != nil {
			return nil, "", err
		}
	}
	ms, next, err := s.repo.List(ctx, userID, span, page)
	if err != nil {
		return nil, "", err
	}
	out := make([]Memory, len(ms))
	for i, m := range ms {
		out[i] = s.settings.addressed(m)
	}
	return out, next, nil
}

// Count counts the user's memories of date.
func (s *Service) Count(ctx context.Context, userID string, date core.Date) (int, error) {
	if err := requireID("userId", userID); err != nil {
		return 0, err
	}
	return s.repo.Count(ctx, userID, date)
}

// Update changes the title and/or the description of the user's memory and
// returns it complete (announced to the owner, LiveUpdated); the date and
// the images cannot change.
func (s *Service) Update(ctx context.Context, userID, id string, p Patch) (Memory, error) {
	if err := requireIDs(userID, id); err != nil {
		return Memory{}, err
	}
	if err := p.check(); err != nil {
		return Memory{}, err
	}
	now := s.clock.Now()
	var updated Memory // what the update made, as read, in the feed with it
	put := []core.Change{core.Put(userID, core.ChangeMemory, id, func() any { return updated })}
	var m Memory
	err := core.WriteWithChanges(ctx, s.bus, put, func(ctx context.Context) (err error) {
		m, err = s.repo.Update(ctx, userID, id, func(m *Memory) error {
			next, err := p.apply(s.settings.addressed(*m)) // the patch carries addresses
			if err != nil {
				return err
			}
			next.UpdatedAt = now
			*m, updated = s.settings.stored(next), next
			return nil
		})
		return err
	})
	if err != nil {
		return Memory{}, notFound(err)
	}
	m = s.settings.addressed(m)
	s.announce(ctx, LiveUpdated, userID, m)
	return m, nil
}

// Delete removes the user's memory for good (announced to the owner,
// LiveDeleted).
func (s *Service) Delete(ctx context.Context, userID, id string) error {
	if err := requireIDs(userID, id); err != nil {
		return err
	}
	del := []core.Change{core.Delete(userID, core.ChangeMemory, id)}
	if err := core.WriteWithChanges(ctx, s.bus, del, func(ctx context.Context) error { return s.repo.Delete(ctx, userID, id) }); err != nil {
		return notFound(err)
	}
	s.announce(ctx, LiveDeleted, userID, core.Deleted{ID: id})
	return nil
}

// Section, ExportUser and PurgeUser make the module a core.UserData owner.
func (s *Service) Section() string { return "memories" }

// ExportUser returns every memory of the user in list order, however many:
// it reads them page by page.
func (s *Service) ExportUser(ctx context.Context, userID string) (any, error) {
	list := func(p core.Page) ([]Memory, string, error) { return s.repo.List(ctx, userID, AllDates, p) }
	return core.EveryPage(list, s.settings.addressed)
}

// PurgeUser deletes every memory of the user. The image files they point to
// belong to the images module, which purges its own.
func (s *Service) PurgeUser(ctx context.Context, userID string) error {
	return s.repo.DeleteByUser(ctx, userID)
}

func requireID(field, v string) error {
	if strings.TrimSpace(v) == "" {
		return core.Required(field)
	}
	return nil
}

func requireIDs(userID, memoryID string) error {
	if err := requireID("userId", userID); err != nil {
		return err
	}
	return requireID("memoryId", memoryID)
}

// notFound gives a repository's not-found the module's wording; other errors
// (an invalid patch, a database failure) pass unchanged.
func notFound(err error) error {
	if core.IsKind(err, core.KindNotFound) {
		return errNotFound()
	}
	return err
}
