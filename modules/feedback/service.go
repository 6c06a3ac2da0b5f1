package feedback

import (
	"context"

	"tandem/core"
)

// Service holds every feedback rule of the API (docs/api.md).
type Service struct {
	repo    Repository
	limiter core.Limiter
	clock   core.Clock
	ids     core.IDs
}

// NewService is a plain constructor, usable without fx.
func NewService(repo Repository, limiter core.Limiter, clock core.Clock, ids core.IDs) *Service {
	return &Service{repo: repo, limiter: limiter, clock: clock, ids: ids}
}

// Submit stores the user's feedback message (trimmed, 1 to 5000
// characters; 400 invalid_request otherwise). A user may send SubmitRate's
// limit per window; beyond it 429 rate_limited with Retry-After. Refused
// messages are neither stored nor counted.
func (s *Service) Submit(ctx context.Context, userID, message string) (Feedback, error) {
	msg, err := normalizeMessage(message)
	if err != nil {
		return Feedback{}, err
	}
	if err := s.limiter.Hit(ctx, SubmitRate, userID, "rate_limited"); err != nil {
		return Feedback{}, err
	}
	f := Feedback{ID: s.ids.New(), UserID: userID, Message: msg, CreatedAt: s.clock.Now()}
	if err := s.repo.Create(ctx, f); err != nil {
		return Feedback{}, err
	}
	return f, nil
}

// List returns the user's own feedback, newest first, and the next cursor.
func (s *Service) List(ctx context.Context, userID string, page core.Page) ([]Feedback, string, error) {
	return nonNil(s.repo.ListByUser(ctx, userID, page))
}

// ListAll returns everyone's feedback, newest first, and the next cursor;
// the route that calls it is for administrators only.
func (s *Service) ListAll(ctx context.Context, page core.Page) ([]Feedback, string, error) {
	return nonNil(s.repo.List(ctx, page))
}

// ListByState is ListAll filtered by state (administrators).
func (s *Service) ListByState(ctx context.Context, state State, page core.Page) ([]Feedback, string, error) {
	if state == StateAll {
		return s.ListAll(ctx, page)
	}
	return nonNil(s.repo.ListByState(ctx, state == StateHandled, page))
}

// Get returns one message (administrators); 404 not_found when there is none.
func (s *Service) Get(ctx context.Context, id string) (Feedback, error) {
	f, err := s.repo.Get(ctx, id)
	if core.IsKind(err, core.KindNotFound) {
		return Feedback{}, errNotFound()
	}
	return f, err
}

// MarkHandled records that the calling administrator (by, their e-mail)
// dealt with the message; marking it again keeps the first mark.
func (s *Service) MarkHandled(ctx context.Context, id, by string) (Feedback, error) {
	f, err := s.repo.MarkHandled(ctx, id, by, s.clock.Now())
	if core.IsKind(err, core.KindNotFound) {
		return Feedback{}, errNotFound()
	}
	return f, err
}

func errNotFound() error {
	return core.NotFound("not_found", "memory.feedbackNotFound", "feedback not found")
}

func nonNil(fs []Feedback, next string, err error) ([]Feedback, string, error) {
	if err != nil {
		return nil, "", err
	}
	if fs == nil {
		fs = []Feedback{}
	}
	return fs, next, nil
}

// Section, ExportUser and PurgeUser make the module a core.UserData owner.
func (s *Service) Section() string { return "feedback" }

// ExportUser returns every feedback message of the user, newest first,
// however many: it reads them page by page.
func (s *Service) ExportUser(ctx context.Context, userID string) (any, error) {
	list := func(p core.Page) ([]Feedback, string, error) { return s.repo.ListByUser(ctx, userID, p) }
	return core.EveryPage(list, func(f Feedback) Feedback { return f })
}

// PurgeUser deletes the user's feedback.
func (s *Service) PurgeUser(ctx context.Context, userID string) error {
	return s.repo.DeleteByUser(ctx, userID)
}
