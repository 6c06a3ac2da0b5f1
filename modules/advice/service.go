package advice

import (
	"context"

	"tandem/core"
)

// Service holds every daily-advice rule of the API (docs/api.md).
type Service struct {
	repo  Repository
	users Users
	clock core.Clock
	ids   core.IDs
	bank  []Advice
}

// NewService is a plain constructor, usable without fx; it serves Bank.
func NewService(repo Repository, users Users, clock core.Clock, ids core.IDs) *Service {
	return &Service{repo: repo, users: users, clock: clock, ids: ids, bank: Bank}
}

// Today returns the user's advice of their today (the date in their
// timezone): the one already produced for that date, else a new pick, stored
// so that it stays the same all day, on every device and process.
func (s *Service) Today(ctx context.Context, userID string) (Daily, error) {
	loc, err := s.users.Location(ctx, userID)
	if err != nil {
		return Daily{}, err
	}
	today := core.Today(s.clock.Now(), loc)
	return s.repo.Open(ctx, userID, today, func(nearby []Daily) (Daily, error) {
		a := Pick(s.bank, userID, today, nearby)
		return Daily{ID: s.ids.New(), UserID: userID, Date: today, AdviceID: a.ID, Text: a.Text, Theme: a.Theme,
			CreatedAt: s.clock.Now()}, nil
	})
}

// Section, ExportUser and PurgeUser make the module a core.UserData owner.
func (s *Service) Section() string { return "advice" }

// ExportUser returns every advice the user was given, newest date first.
func (s *Service) ExportUser(ctx context.Context, userID string) (any, error) {
	return s.repo.ListByUser(ctx, userID)
}

// PurgeUser deletes the user's advice history.
func (s *Service) PurgeUser(ctx context.Context, userID string) error {
	return s.repo.DeleteByUser(ctx, userID)
}
