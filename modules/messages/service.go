package messages

import (
	"context"
	"strings"

	"tandem/core"
)

// LiveSent is the live event of a new message: whoever reads its thread
// hears of it (both partners, the sender's other devices too), with the
// message as the list shows it.
const LiveSent = "message.sent"

// ActivityMessageSent is the partner activity of a new message: the partner
// hears that one came, never its text.
const ActivityMessageSent = "messageSent"

// Service holds every message rule of the API (docs/api.md).
type Service struct {
	repo         Repository
	partnerships Partnerships
	notifier     Notifier
	bus          core.Publisher
	limiter      core.Limiter
	budget       core.WriteBudget
	clock        core.Clock
	ids          core.IDs
}

// NewService is a plain constructor, usable without fx.
func NewService(repo Repository, partnerships Partnerships, notifier Notifier, bus core.Publisher, limiter core.Limiter,
	settings Settings, clock core.Clock, ids core.IDs) *Service {
	return &Service{repo: repo, partnerships: partnerships, notifier: notifier, bus: bus, limiter: limiter,
		budget: settings.Budget.Or(DefaultBudget), clock: clock, ids: ids}
}

// Send adds a message by the user to their current thread: the
// partnership's while paired, else their own. The body is trimmed and must
// hold 1 to MaxBody characters. A valid message spends one of the user's
// write budget first (SendsPerMinute, SendsPerDay): beyond it, 429
// rate_limited with Retry-After and nothing stored. Once stored, the message
// is announced live (LiveSent) and the partner is notified
// (ActivityMessageSent); neither can fail the send.
func (s *Service) Send(ctx context.Context, userID, body string) (Message, error) {
	if err := requireUser(userID); err != nil {
		return Message{}, err
	}
	body, err := NormalizeBody(body)
	if err != nil {
		return Message{}, err
	}
	if err := s.budget.Spend(ctx, s.limiter, userID); err != nil {
		return Message{}, err
	}
	partnershipID, partnerID, paired, err := s.partnerships.PartnershipOf(ctx, userID)
	if err != nil {
		return Message{}, err
	}
	if !paired {
		partnershipID = ""
	}
	m := Message{ID: s.ids.New(), Scope: ScopeOf(userID, partnershipID), AuthorID: userID, Body: body, CreatedAt: s.clock.Now()}
	readers := map[string]any{userID: m} // the thread's readers, in the feed with the message
	if paired {
		readers[partnerID] = m
	}
	// both read a partnership's thread through it: none once it ended
	cs := core.Through(partnershipID, core.ChangesOf(core.ChangeMessage, m.ID, readers)...)
	if err := core.WriteWithChanges(ctx, s.bus, cs, func(ctx context.Context) error { return s.repo.Add(ctx, m) }); err != nil {
		return Message{}, err
	}
	s.announce(ctx, m)
	return m, nil
}

// announce tells the readers of m's thread of it, and the partner through a
// notification. The readers are resolved again after the write: a couple
// that unpaired meanwhile wrote m into a thread listed to neither, so nobody
// hears of it (an ex-partner never does). A failed lookup announces nothing:
// the message stands, and the apps see it on their next read.
func (s *Service) announce(ctx context.Context, m Message) {
	ctx, cancel := core.AfterCommit(ctx) // the write stands: never wait on a hung store for its news
	defer cancel()
	partnershipID, partnerID, paired, err := s.partnerships.PartnershipOf(ctx, m.AuthorID)
	if err != nil {
		return
	}
	shared := paired && partnershipID == m.Scope
	readers := map[string]any{}
	switch {
	case shared:
		readers[m.AuthorID], readers[partnerID] = m, m
	case !paired && m.Scope == SoloScope(m.AuthorID):
		readers[m.AuthorID] = m
	default:
		return
	}
	s.bus.Publish(ctx, core.Live{Type: LiveSent, For: readers})
	if shared {
		_ = s.notifier.NotifyActivity(ctx, partnerID, m.AuthorID, ActivityMessageSent) // reported by the adapter; the message stands
	}
}

// List returns the user's current thread newest first, the same for both
// partners, and the cursor of the next page, if any. An earlier
// partnership's thread is never listed, nor the solo thread while paired.
func (s *Service) List(ctx context.Context, userID string, page core.Page) ([]Message, string, error) {
	if err := requireUser(userID); err != nil {
		return nil, "", err
	}
	if page.Cursor != "" {
		if _, err := ParseCursor(page.Cursor); err != nil {
			return nil, "", err
		}
	}
	scope, err := s.scope(ctx, userID)
	if err != nil {
		return nil, "", err
	}
	ms, next, err := s.repo.List(ctx, scope, page)
	if err != nil {
		return nil, "", err
	}
	if ms == nil {
		ms = []Message{}
	}
	return ms, next, nil
}

// Latest is the newest message of the user's current thread (the home
// screen's), ok false while the thread is empty: List's first message.
func (s *Service) Latest(ctx context.Context, userID string) (Message, bool, error) {
	if err := requireUser(userID); err != nil {
		return Message{}, false, err
	}
	scope, err := s.scope(ctx, userID)
	if err != nil {
		return Message{}, false, err
	}
	l, err := core.Memo(ctx, latestKey(scope), func() (core.Found[Message], error) {
		ms, _, err := s.repo.List(ctx, scope, core.Page{Limit: 1})
		if err != nil || len(ms) == 0 {
			return core.Found[Message]{}, err
		}
		return core.Found[Message]{Value: ms[0], OK: true}, nil
	})
	return l.Value, l.OK, err
}

func latestKey(scope string) string { return "messages.latest:" + scope }

// RememberLatest records m (ok false: the thread is empty) as the request's
// read memo answer for the newest message of the thread scope: a batch read
// (the home screen's) reads it with the rest. Without a memo it does
// nothing.
func RememberLatest(ctx context.Context, scope string, m Message, ok bool) {
	core.Remember(ctx, latestKey(scope), core.Found[Message]{Value: m, OK: ok}, nil)
}

// scope is the user's current thread.
func (s *Service) scope(ctx context.Context, userID string) (string, error) {
	partnershipID, _, paired, err := s.partnerships.PartnershipOf(ctx, userID)
	if err != nil {
		return "", err
	}
	if !paired {
		partnershipID = ""
	}
	return ScopeOf(userID, partnershipID), nil
}

// Section, ExportUser and PurgeUser make the module a core.UserData owner.
func (s *Service) Section() string { return "messages" }

// ExportedMessage is a message the user wrote with the partnership whose
// thread holds it ("" for the user's solo thread).
type ExportedMessage struct {
	Message
	PartnershipID string
}

// ExportUser returns every message the user wrote, in every thread, newest
// first, however many: it reads them page by page. The partner's messages
// are the partner's data, not exported here.
func (s *Service) ExportUser(ctx context.Context, userID string) (any, error) {
	list := func(p core.Page) ([]Message, string, error) { return s.repo.ByAuthor(ctx, userID, p) }
	return core.EveryPage(list, func(m Message) ExportedMessage {
		e := ExportedMessage{Message: m}
		if m.Scope != SoloScope(userID) {
			e.PartnershipID = m.Scope
		}
		return e
	})
}

// PurgeUser deletes every message the user wrote, in every thread, and their
// solo thread. The partner's messages in a shared thread stay: they are the
// partner's data (in the partner's export, deleted with the partner's
// account). Deleting the account ends the partnership, so that thread is
// listed to nobody any more.
func (s *Service) PurgeUser(ctx context.Context, userID string) error {
	return s.repo.DeleteUser(ctx, userID)
}

func requireUser(userID string) error {
	if strings.TrimSpace(userID) == "" {
		return core.Required("userId")
	}
	return nil
}

// LostWith are the changes, for reader, of the end of partnershipID
// (core.SharedData): the deletes of its thread's messages, which neither
// member reads once it ends, and the puts of reader's solo thread, listed
// again from then on.
func (s *Service) LostWith(ctx context.Context, partnershipID, reader, _ string) ([]core.Change, error) {
	lost, err := s.thread(ctx, ScopeOf(reader, partnershipID), func(m Message) core.Change {
		return core.Delete(reader, core.ChangeMessage, m.ID)
	})
	if err != nil {
		return nil, err
	}
	back, err := s.thread(ctx, SoloScope(reader), func(m Message) core.Change {
		return core.Put(reader, core.ChangeMessage, m.ID, m) // as the list shows it
	})
	if err != nil {
		return nil, err
	}
	return append(lost, back...), nil
}

// GainedWith are the deletes, for reader, of their solo thread's messages,
// listed no more while paired; the new partnership's thread is empty
// (core.GainedData).
func (s *Service) GainedWith(ctx context.Context, _, reader, _ string) ([]core.Change, error) {
	return s.thread(ctx, SoloScope(reader), func(m Message) core.Change {
		return core.Delete(reader, core.ChangeMessage, m.ID)
	})
}

// thread is change of each message of the thread scope, page by page.
func (s *Service) thread(ctx context.Context, scope string, change func(Message) core.Change) ([]core.Change, error) {
	list := func(p core.Page) ([]Message, string, error) { return s.repo.List(ctx, scope, p) }
	return core.EveryPage(list, change)
}
