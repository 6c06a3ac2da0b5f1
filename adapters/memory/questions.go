package memory

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"tandem/core"
	"tandem/modules/questions"
)

var _ questions.Repository = (*QuestionRepo)(nil)

// QuestionRepo keeps daily questions and their messages in tables under one
// mutex, so each method is atomic like its SQL transaction; the dailies'
// unique index plays the unique (partnership, date) one.
type QuestionRepo struct {
	mu       sync.RWMutex
	dailies  table[string, questions.Daily] // by id; unique: questionDateKey
	messages table[string, questions.Message]
}

func NewQuestionRepo() *QuestionRepo {
	return &QuestionRepo{
		dailies: newTable[string, questions.Daily](conflict("memory.dailyQuestionExists", "daily question exists"),
			notFound("memory.noQuestionThatDate", "no question for that date")).
			indexed(func(d questions.Daily) string { return questionDateKey(d.PartnershipID, d.Date) }),
		messages: newTable[string, questions.Message](conflict("memory.messageExists", "message exists"), nil)}
}

func questionDateKey(partnershipID string, day core.Date) string {
	return partnershipID + "|" + day.String()
}

func (r *QuestionRepo) Open(_ context.Context, partnershipID string, day core.Date, pick func(nearby []questions.Daily) (questions.Daily, error), opened func(d questions.Daily, picked bool)) (questions.Daily, error) {
	if opened == nil {
		opened = func(questions.Daily, bool) {}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if d, ok := r.dailies.lookup(questionDateKey(partnershipID, day)); ok {
		opened(d, false)
		return d, nil
	}
	from, to := questions.NearbyFrom(day), questions.NearbyTo(day)
	d, err := pick(r.dailies.scan(func(d questions.Daily) bool {
		return d.PartnershipID == partnershipID && !d.Date.Before(from) && !d.Date.After(to)
	}, func(a, b questions.Daily) int { return a.Date.Time().Compare(b.Date.Time()) }))
	if err != nil {
		return questions.Daily{}, err
	}
	d.PartnershipID, d.Date = partnershipID, day
	if err := r.dailies.insert(d.ID, d); err != nil {
		return questions.Daily{}, err
	}
	opened(d, true)
	return d, nil
}

func (r *QuestionRepo) Find(_ context.Context, partnershipID string, day core.Date) (questions.Daily, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	d, ok := r.dailies.lookup(questionDateKey(partnershipID, day))
	if !ok {
		return questions.Daily{}, r.dailies.notFound()
	}
	return d, nil
}

func (r *QuestionRepo) Conversation(ctx context.Context, partnershipID string, day core.Date) (questions.Daily, []questions.Message, error) {
	d, err := r.Find(ctx, partnershipID, day)
	if err != nil {
		return questions.Daily{}, nil, err
	}
	ms, err := r.Messages(ctx, []string{d.ID})
	return d, ms, err
}

func (r *QuestionRepo) History(_ context.Context, partnershipID string, until core.Date, page core.Page) ([]questions.Daily, string, error) {
	if page.Cursor != "" {
		before, err := questions.ParseHistoryCursor(page.Cursor)
		if err != nil {
			return nil, "", err
		}
		if !before.After(until) {
			until = before.AddDays(-1)
		}
	}
	r.mu.RLock()
	out := r.dailies.scan(func(d questions.Daily) bool { return d.PartnershipID == partnershipID && !d.Date.After(until) },
		func(a, b questions.Daily) int { return b.Date.Time().Compare(a.Date.Time()) })
	r.mu.RUnlock()
	out, next := core.CutPage(out, page, func(d questions.Daily) string { return questions.HistoryCursor(d.Date) })
	return out, next, nil
}

// olderMessage orders like the SQL query: created_at, then id.
func olderMessage(a, b questions.Message) int {
	if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

func (r *QuestionRepo) Messages(_ context.Context, dailyIDs []string) ([]questions.Message, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.messages.scan(func(m questions.Message) bool { return slices.Contains(dailyIDs, m.DailyID) }, olderMessage), nil
}

func (r *QuestionRepo) AddMessage(_ context.Context, m questions.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.messages.has(m.ID) {
		return r.messages.conflict()
	}
	if _, _, answered := r.messages.pick(func(o questions.Message) bool {
		return m.Kind == questions.KindAnswer && o.DailyID == m.DailyID && o.UserID == m.UserID && o.Kind == questions.KindAnswer
	}); answered {
		return core.Conflict("conflict", "memory.alreadyAnswered", "already answered")
	}
	return r.messages.insert(m.ID, m)
}

func (r *QuestionRepo) React(_ context.Context, m questions.Message) (questions.Message, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if id, o, ok := r.messages.pick(func(o questions.Message) bool {
		return o.Kind == questions.KindReaction && o.UserID == m.UserID && o.MessageID == m.MessageID
	}); ok {
		o.Reaction, o.CreatedAt = m.Reaction, m.CreatedAt
		r.messages.put(id, o)
		return o, nil
	}
	if err := r.messages.insert(m.ID, m); err != nil {
		return questions.Message{}, err
	}
	return m, nil
}

func (r *QuestionRepo) AnsweredByBoth(_ context.Context, partnershipID string) ([]core.Date, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	answers := map[string]int{} // daily id -> answers (one per user: AddMessage enforces it)
	for _, m := range r.messages.rows {
		if m.Kind == questions.KindAnswer && r.dailies.rows[m.DailyID].PartnershipID == partnershipID {
			answers[m.DailyID]++
		}
	}
	out := []core.Date{}
	for id, n := range answers {
		if n >= 2 {
			out = append(out, r.dailies.rows[id].Date)
		}
	}
	slices.SortFunc(out, func(a, b core.Date) int { return a.Time().Compare(b.Time()) })
	return out, nil
}

func (r *QuestionRepo) MessagesByUser(_ context.Context, userID string) ([]questions.Entry, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	mine := r.messages.scan(func(m questions.Message) bool { return m.UserID == userID }, olderMessage)
	out := make([]questions.Entry, len(mine))
	for i, m := range mine {
		out[i] = questions.Entry{Daily: r.dailies.rows[m.DailyID], Message: m}
	}
	return out, nil
}

func (r *QuestionRepo) DeleteByUser(_ context.Context, userID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	gone := r.messages.deleteWhere(func(_ string, m questions.Message) bool { return m.UserID == userID })
	r.messages.deleteWhere(func(_ string, m questions.Message) bool {
		return m.Kind == questions.KindReaction && slices.Contains(gone, m.MessageID)
	})
	return nil
}
