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

// QuestionRepo keeps daily questions and their messages in maps under one
// mutex, so each method is atomic like its SQL transaction; byDate plays the
// unique (partnership, date) index.
type QuestionRepo struct {
	mu       sync.RWMutex
	dailies  map[string]questions.Daily   // by id
	byDate   map[string]string            // partnership id + date -> daily id
	messages map[string]questions.Message // by id
}

func NewQuestionRepo() *QuestionRepo {
	return &QuestionRepo{dailies: map[string]questions.Daily{}, byDate: map[string]string{},
		messages: map[string]questions.Message{}}
}

func questionDateKey(partnershipID string, day core.Date) string {
	return partnershipID + "|" + day.String()
}

func (r *QuestionRepo) Open(_ context.Context, partnershipID string, day core.Date, pick func(nearby []questions.Daily) (questions.Daily, error)) (questions.Daily, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if id, ok := r.byDate[questionDateKey(partnershipID, day)]; ok {
		return r.dailies[id], nil
	}
	from, to := questions.NearbyFrom(day), questions.NearbyTo(day)
	var nearby []questions.Daily
	for _, d := range r.dailies {
		if d.PartnershipID == partnershipID && !d.Date.Before(from) && !d.Date.After(to) {
			nearby = append(nearby, d)
		}
	}
	slices.SortFunc(nearby, func(a, b questions.Daily) int { return a.Date.Time().Compare(b.Date.Time()) })
	d, err := pick(nearby)
	if err != nil {
		return questions.Daily{}, err
	}
	d.PartnershipID, d.Date = partnershipID, day
	if _, taken := r.dailies[d.ID]; taken {
		return questions.Daily{}, core.Conflict("conflict", "memory.dailyQuestionExists", "daily question exists")
	}
	r.dailies[d.ID] = d
	r.byDate[questionDateKey(partnershipID, day)] = d.ID
	return d, nil
}

func (r *QuestionRepo) Find(_ context.Context, partnershipID string, day core.Date) (questions.Daily, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	id, ok := r.byDate[questionDateKey(partnershipID, day)]
	if !ok {
		return questions.Daily{}, core.NotFound("not_found", "memory.noQuestionThatDate", "no question for that date")
	}
	return r.dailies[id], nil
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
	var out []questions.Daily
	for _, d := range r.dailies {
		if d.PartnershipID == partnershipID && !d.Date.After(until) {
			out = append(out, d)
		}
	}
	r.mu.RUnlock()
	slices.SortFunc(out, func(a, b questions.Daily) int { return b.Date.Time().Compare(a.Date.Time()) })
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
	out := []questions.Message{}
	for _, m := range r.messages {
		if slices.Contains(dailyIDs, m.DailyID) {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, olderMessage)
	return out, nil
}

func (r *QuestionRepo) AddMessage(_ context.Context, m questions.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, taken := r.messages[m.ID]; taken {
		return core.Conflict("conflict", "memory.messageExists", "message exists")
	}
	if m.Kind == questions.KindAnswer {
		for _, o := range r.messages {
			if o.DailyID == m.DailyID && o.UserID == m.UserID && o.Kind == questions.KindAnswer {
				return core.Conflict("conflict", "memory.alreadyAnswered", "already answered")
			}
		}
	}
	r.messages[m.ID] = m
	return nil
}

func (r *QuestionRepo) React(_ context.Context, m questions.Message) (questions.Message, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, o := range r.messages {
		if o.Kind == questions.KindReaction && o.UserID == m.UserID && o.MessageID == m.MessageID {
			o.Reaction, o.CreatedAt = m.Reaction, m.CreatedAt
			r.messages[id] = o
			return o, nil
		}
	}
	if _, taken := r.messages[m.ID]; taken {
		return questions.Message{}, core.Conflict("conflict", "memory.messageExists", "message exists")
	}
	r.messages[m.ID] = m
	return m, nil
}

func (r *QuestionRepo) AnsweredByBoth(_ context.Context, partnershipID string) ([]core.Date, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	answers := map[string]int{} // daily id -> answers (one per user: AddMessage enforces it)
	for _, m := range r.messages {
		if m.Kind == questions.KindAnswer && r.dailies[m.DailyID].PartnershipID == partnershipID {
			answers[m.DailyID]++
		}
	}
	out := []core.Date{}
	for id, n := range answers {
		if n >= 2 {
			out = append(out, r.dailies[id].Date)
		}
	}
	slices.SortFunc(out, func(a, b core.Date) int { return a.Time().Compare(b.Time()) })
	return out, nil
}

func (r *QuestionRepo) MessagesByUser(_ context.Context, userID string) ([]questions.Entry, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var mine []questions.Message
	for _, m := range r.messages {
		if m.UserID == userID {
			mine = append(mine, m)
		}
	}
	slices.SortFunc(mine, olderMessage)
	out := make([]questions.Entry, len(mine))
	for i, m := range mine {
		out[i] = questions.Entry{Daily: r.dailies[m.DailyID], Message: m}
	}
	return out, nil
}

func (r *QuestionRepo) DeleteByUser(_ context.Context, userID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	gone := map[string]bool{}
	for id, m := range r.messages {
		if m.UserID == userID {
			gone[id] = true
			delete(r.messages, id)
		}
	}
	for id, m := range r.messages {
		if m.Kind == questions.KindReaction && gone[m.MessageID] {
			delete(r.messages, id)
		}
	}
	return nil
}
