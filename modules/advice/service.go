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
	texts core.Translator
}

// NewService is a plain constructor, usable without fx; it serves Bank.
func NewService(repo Repository, users Users, clock core.Clock, ids core.IDs, texts core.Translator) *Service {
	return &Service{repo: repo, users: users, clock: clock, ids: ids, bank: Bank, texts: texts}
}

// TextKey is the catalog key of the advice id: the bank holds its English,
// the catalogs its translations.
func TextKey(id string) string { return "advice." + id }

// Today returns the user's advice of their today (the date in their
// timezone): the one already produced for that date, else a new pick, stored
// so that it stays the same all day, on every device and process.
func (s *Service) Today(ctx context.Context, userID string) (Daily, error) {
	loc, err := s.users.Location(ctx, userID)
	if err != nil {
		return Daily{}, err
	}
	locale, err := s.users.Locale(ctx, userID)
	if err != nil {
		return Daily{}, err
	}
	today := core.Today(s.clock.Now(), loc)
	d, err := s.repo.Open(ctx, userID, today, func(nearby []Daily) (Daily, error) {
		a := Pick(s.bank, userID, today, nearby)
		return Daily{ID: s.ids.New(), UserID: userID, Date: today, AdviceID: a.ID, Text: a.Text, Theme: a.Theme,
			CreatedAt: s.clock.Now()}, nil
	})
	// Stored in English; read in the reader's locale (advice no longer in
	// any catalog keeps the English it was stored with).
	if key := TextKey(d.AdviceID); err == nil {
		if t := s.texts.Translate(locale, core.Msg(key)); t != key {
			d.Text = t
		}
	}
	return d, err
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
