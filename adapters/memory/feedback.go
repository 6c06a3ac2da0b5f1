package memory

import (
	"cmp"
	"context"
	"sync"
	"time"

	"tandem/core"
	"tandem/modules/feedback"
)

var _ feedback.Repository = (*FeedbackRepo)(nil)

// FeedbackRepo keeps feedback by id under one mutex.
type FeedbackRepo struct {
	mu   sync.RWMutex
	rows table[string, feedback.Feedback]
}

func NewFeedbackRepo() *FeedbackRepo {
	return &FeedbackRepo{rows: newTable[string, feedback.Feedback](conflict("memory.feedbackExists", "feedback exists"),
		notFound("memory.feedbackNotFound", "feedback not found"))}
}

func (r *FeedbackRepo) Create(_ context.Context, f feedback.Feedback) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rows.insert(f.ID, f)
}

func (r *FeedbackRepo) ListByUser(_ context.Context, userID string, page core.Page) ([]feedback.Feedback, string, error) {
	return r.list(page, func(f feedback.Feedback) bool { return f.UserID == userID })
}

func (r *FeedbackRepo) List(_ context.Context, page core.Page) ([]feedback.Feedback, string, error) {
	return r.list(page, func(feedback.Feedback) bool { return true })
}

// newerFeedback orders like the SQL queries: created_at, then id, descending.
func newerFeedback(a, b feedback.Feedback) int {
	if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
		return c
	}
	return cmp.Compare(b.ID, a.ID)
}

func (r *FeedbackRepo) ListByState(_ context.Context, handled bool, page core.Page) ([]feedback.Feedback, string, error) {
	return r.list(page, func(f feedback.Feedback) bool { return f.Handled() == handled })
}

func (r *FeedbackRepo) Get(_ context.Context, id string) (feedback.Feedback, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.rows.find(id)
}

func (r *FeedbackRepo) MarkHandled(_ context.Context, id, by string, at time.Time) (feedback.Feedback, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rows.update(id, func(f *feedback.Feedback) error {
		if !f.Handled() {
			f.HandledAt, f.HandledBy = core.FromMillis(core.Millis(at)), by // stored to the millisecond, as SQL does
		}
		return nil
	})
}

func (r *FeedbackRepo) list(page core.Page, keep func(feedback.Feedback) bool) ([]feedback.Feedback, string, error) {
	var after *feedback.Feedback
	if page.Cursor != "" {
		c, err := core.ParseTimeCursor(page.Cursor)
		if err != nil {
			return nil, "", err
		}
		after = &feedback.Feedback{ID: c.ID, CreatedAt: core.FromMillis(c.At)}
	}
	r.mu.RLock()
	out := r.rows.scan(func(f feedback.Feedback) bool {
		return keep(f) && (after == nil || newerFeedback(*after, f) < 0)
	}, newerFeedback)
	r.mu.RUnlock()
	out, next := core.CutPage(out, page, func(x feedback.Feedback) string {
		return core.TimeCursor{At: core.Millis(x.CreatedAt), ID: x.ID}.String()
	})
	return out, next, nil
}

func (r *FeedbackRepo) DeleteByUser(_ context.Context, userID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rows.deleteWhere(func(_ string, f feedback.Feedback) bool { return f.UserID == userID })
	return nil
}
