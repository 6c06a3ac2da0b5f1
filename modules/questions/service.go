package questions

import (
	"context"

	"tandem/core"
)

// The live events of the daily question: an answer, a reply or a reaction
// in a conversation. Both partners hear of it, each with the question as
// their own GET shows it (a View: the partner's answer stays locked for a
// reader who has not answered).
const (
	LiveAnswered = "question.answered"
	LiveReplied  = "question.replied"
	LiveReacted  = "question.reacted"
)

// Service holds every daily-question rule of the API (docs/api.md).
type Service struct {
	repo         Repository
	partnerships Partnerships
	users        Users
	notifier     Notifier
	bus          core.Publisher
	clock        core.Clock
	ids          core.IDs
	bank         []Question
	texts        core.Translator
}

// NewService is a plain constructor, usable without fx; it serves Bank.
func NewService(repo Repository, partnerships Partnerships, users Users, notifier Notifier, bus core.Publisher,
	clock core.Clock, ids core.IDs, texts core.Translator) *Service {
	return &Service{repo: repo, partnerships: partnerships, users: users, notifier: notifier, bus: bus, clock: clock,
		ids: ids, bank: Bank, texts: texts}
}

// TextKey is the catalog key of the question id: the bank holds its
// English, the catalogs its translations.
func TextKey(id string) string { return "question." + id }

// viewFor is the package's viewFor with d's question in locale (a question
// no longer in any catalog keeps the English it was stored with).
func (s *Service) viewFor(locale, reader string, d Daily, msgs []Message) View {
	key := TextKey(d.QuestionID)
	if t := s.texts.Translate(locale, core.Msg(key)); t != key {
		d.Text = t
	}
	return viewFor(reader, d, msgs)
}

// CategoryNotify is the notification category of "your partner answered".
const CategoryNotify = "questions"

// couple is the caller's side of a partnership and their today.
type couple struct {
	userID, partnershipID, partnerID string
	today                            core.Date
	locale                           string // the caller's: the question is read in it
}

// Today returns the couple's question of the caller's today (the date in the
// caller's timezone), picking it when neither partner has opened that date
// yet, with the couple's streak. Unpaired: 409 not_paired.
func (s *Service) Today(ctx context.Context, userID string) (View, error) {
	c, err := s.couple(ctx, userID)
	if err != nil {
		return View{}, err
	}
	v, err := s.todaysView(ctx, userID, c)
	if err != nil {
		return View{}, err
	}
	if v.Streak, err = s.streak(ctx, c); err != nil {
		return View{}, err
	}
	return v, nil
}

// Streak returns the caller's couple's question streak (the home screen);
// 0/0 without a partner. It belongs to the partnership: after an unpairing
// the old couple's streak stays with its answers, and a new partnership
// starts at 0, even with the same partner.
func (s *Service) Streak(ctx context.Context, userID string) (Streak, error) {
	c, ok, err := s.coupleOf(ctx, userID)
	if err != nil || !ok {
		return Streak{}, err
	}
	return s.streak(ctx, c)
}

// Act answers, replies to or reacts in the conversation of the caller's
// today's question and returns the question as the caller then sees it.
// Rules: one answer per user (again: 409 conflict, the first answer stands:
// the partner may already have read and replied to it); replies and
// reactions only after one's own answer (409 conflict), and only to answers
// and replies of this conversation (404 not_found for another id, 400 for a
// reaction's id); a user's second reaction to an item replaces the first.
// An answer notifies the partner (category questions); a failed
// notification does not fail the answer. Every stored post is announced
// live (LiveAnswered, LiveReplied, LiveReacted; see announce). The view
// carries the couple's streak, as the GET's does.
func (s *Service) Act(ctx context.Context, userID string, p Post) (View, error) {
	p, err := validatePost(p)
	if err != nil {
		return View{}, err
	}
	c, err := s.couple(ctx, userID)
	if err != nil {
		return View{}, err
	}
	var d Daily
	if _, ok := p.(Answer); ok {
		d, err = s.open(ctx, c)
	} else {
		// Replies and reactions need one's own answer, so a date nobody has
		// opened yet is refused as it is: nothing is picked for a refusal.
		d, err = s.repo.Find(ctx, c.partnershipID, c.today)
		if core.IsKind(err, core.KindNotFound) {
			return View{}, errAnswerFirst()
		}
	}
	if err != nil {
		return View{}, err
	}
	msgs, err := s.repo.Messages(ctx, []string{d.ID})
	if err != nil {
		return View{}, err
	}
	m := Message{ID: s.ids.New(), DailyID: d.ID, UserID: userID, CreatedAt: s.clock.Now()}
	var live string
	switch p := p.(type) {
	case Answer:
		live = LiveAnswered
		if answered(userID, msgs) {
			return View{}, errAnsweredAlready()
		}
		m.Kind, m.Text = KindAnswer, p.Text
		err := s.post(ctx, c, d, msgs, m, func(ctx context.Context) error { return s.repo.AddMessage(ctx, m) })
		if core.IsKind(err, core.KindConflict) {
			return View{}, errAnsweredAlready() // a concurrent answer of the same user won
		}
		if err != nil {
			return View{}, err
		}
		s.notifyPartner(ctx, c.partnerID, answered(c.partnerID, msgs))
	case Reply:
		live = LiveReplied
		if !answered(userID, msgs) {
			return View{}, errAnswerFirst()
		}
		if p.ReplyTo != "" {
			if err := target(p.ReplyTo, msgs); err != nil {
				return View{}, err
			}
		}
		m.Kind, m.Text, m.ReplyTo = KindReply, p.Text, p.ReplyTo
		if err := s.post(ctx, c, d, msgs, m, func(ctx context.Context) error { return s.repo.AddMessage(ctx, m) }); err != nil {
			return View{}, err
		}
	case React:
		live = LiveReacted
		if !answered(userID, msgs) {
			return View{}, errAnswerFirst()
		}
		if err := target(p.MessageID, msgs); err != nil {
			return View{}, err
		}
		m.Kind, m.Reaction, m.MessageID = KindReaction, p.Reaction, p.MessageID
		react := func(ctx context.Context) error { _, err := s.repo.React(ctx, m); return err }
		if err := s.post(ctx, c, d, msgs, m, react); err != nil {
			return View{}, err
		}
	}
	if msgs, err = s.repo.Messages(ctx, []string{d.ID}); err != nil {
		return View{}, err
	}
	v := s.viewFor(c.locale, userID, d, msgs)
	if v.Streak, err = s.streak(ctx, c); err != nil {
		return View{}, err
	}
	s.announce(ctx, live, userID, d, msgs, v.Streak)
	return v, nil
}

// announce tells both partners of a post to d's conversation, each with d
// as their own GET shows it: the View of the question of their today. The
// partnership is resolved again after the write, so nobody hears of a post
// to a couple that ended meanwhile (an ex-partner never does: their GET is
// 409). A partner whose today is another date (far-apart timezones) reads
// another question and hears nothing; they find the post on reaching d. A
// failed lookup leaves that reader out: the post stands. The streak is the
// couple's, the same for both readers.
func (s *Service) announce(ctx context.Context, typ, userID string, d Daily, msgs []Message, streak Streak) {
	ctx, cancel := core.AfterCommit(ctx) // the write stands: never wait on a hung store for its news
	defer cancel()
	partnershipID, partnerID, ok, err := s.partnerships.PartnershipOf(ctx, userID)
	if err != nil || !ok || partnershipID != d.PartnershipID {
		return
	}
	readers := map[string]any{}
	now := s.clock.Now()
	for _, u := range [2]string{userID, partnerID} {
		loc, err := s.users.Location(ctx, u)
		if err != nil || core.Today(now, loc) != d.Date {
			continue
		}
		locale, err := s.users.Locale(ctx, u)
		if err != nil {
			continue
		}
		v := s.viewFor(locale, u, d, msgs)
		v.Streak = streak
		readers[u] = v
	}
	if len(readers) > 0 {
		s.bus.Publish(ctx, core.Live{Type: typ, For: readers})
	}
}

// History returns the couple's questions of dates up to the caller's today,
// newest first, each as the caller sees it; page.Limit 0 means
// DefaultHistory, more than MaxHistory is a 400. The next cursor comes back
// when more follow.
func (s *Service) History(ctx context.Context, userID string, page core.Page) ([]View, string, error) {
	switch {
	case page.Limit == 0:
		page.Limit = DefaultHistory
	case page.Limit < 0 || page.Limit > MaxHistory:
		return nil, "", core.InvalidRequest("httpapi.limitWholeNumber1100", "limit must be a whole number from 1 to 100")
	}
	c, err := s.couple(ctx, userID)
	if err != nil {
		return nil, "", err
	}
	days, next, err := s.repo.History(ctx, c.partnershipID, c.today, page)
	if err != nil {
		return nil, "", err
	}
	out := make([]View, 0, len(days))
	if len(days) == 0 {
		return out, next, nil
	}
	ids := make([]string, len(days))
	for i, d := range days {
		ids[i] = d.ID
	}
	msgs, err := s.repo.Messages(ctx, ids)
	if err != nil {
		return nil, "", err
	}
	byDaily := map[string][]Message{}
	for _, m := range msgs {
		byDaily[m.DailyID] = append(byDaily[m.DailyID], m)
	}
	for _, d := range days {
		out = append(out, s.viewFor(c.locale, userID, d, byDaily[d.ID]))
	}
	return out, next, nil
}

// AnsweredOn reports whether the user has a partner and, if so, whether
// they answered their couple's question of day (a date nobody opened yet
// has no answer). It reads only: no question is picked for it. The
// notifications module's daily reminder asks it.
func (s *Service) AnsweredOn(ctx context.Context, userID string, day core.Date) (paired, answeredIt bool, err error) {
	pid, _, ok, err := s.partnerships.PartnershipOf(ctx, userID)
	if err != nil || !ok {
		return false, false, err
	}
	d, err := s.repo.Find(ctx, pid, day)
	if core.IsKind(err, core.KindNotFound) {
		return true, false, nil
	}
	if err != nil {
		return true, false, err
	}
	msgs, err := s.repo.Messages(ctx, []string{d.ID})
	if err != nil {
		return true, false, err
	}
	return true, answered(userID, msgs), nil
}

// couple resolves the caller's partnership and today; 409 not_paired.
func (s *Service) couple(ctx context.Context, userID string) (couple, error) {
	c, ok, err := s.coupleOf(ctx, userID)
	if err == nil && !ok {
		err = errNotPaired()
	}
	return c, err
}

// coupleOf is couple with false for a user without a partner.
func (s *Service) coupleOf(ctx context.Context, userID string) (couple, bool, error) {
	pid, partnerID, ok, err := s.partnerships.PartnershipOf(ctx, userID)
	if err != nil || !ok {
		return couple{}, false, err
	}
	loc, err := s.users.Location(ctx, userID)
	if err != nil {
		return couple{}, false, err
	}
	locale, err := s.users.Locale(ctx, userID)
	if err != nil {
		return couple{}, false, err
	}
	return couple{userID: userID, partnershipID: pid, partnerID: partnerID, today: core.Today(s.clock.Now(), loc), locale: locale}, true, nil
}

// streak is c's streak as of the couple's today: the earlier of the two
// partners' todays, each the date in their own timezone by the rule that
// dates the question. A date stays open while a partner is still on it (they
// can still answer it), so the partner a date ahead in a far-apart zone does
// not see the streak broken by a day the other has not finished.
func (s *Service) streak(ctx context.Context, c couple) (Streak, error) {
	loc, err := s.users.Location(ctx, c.partnerID)
	if err != nil {
		return Streak{}, err
	}
	today := c.today
	if theirs := core.Today(s.clock.Now(), loc); theirs.Before(today) {
		today = theirs
	}
	days, err := s.repo.AnsweredByBoth(ctx, c.partnershipID)
	if err != nil {
		return Streak{}, err
	}
	return StreakOf(days, today), nil
}

// open returns the couple's question of c.today, picking it by Pick when it
// is the first time either partner asks for that date.
func (s *Service) open(ctx context.Context, c couple) (Daily, error) {
	var got struct {
		d      Daily
		picked bool
	}
	cs, err := s.pickChanges(ctx, c, func() (Daily, bool) { return got.d, got.picked })
	if err != nil {
		return Daily{}, err
	}
	var d Daily
	err = core.WriteWithChanges(ctx, s.bus, cs, func(ctx context.Context) (err error) {
		d, err = s.repo.Open(ctx, c.partnershipID, c.today, func(nearby []Daily) (Daily, error) {
			q := Pick(s.bank, c.partnershipID, c.today, nearby)
			return Daily{ID: s.ids.New(), PartnershipID: c.partnershipID, Date: c.today, QuestionID: q.ID, Text: q.Text,
				Category: q.Category, CreatedAt: s.clock.Now()}, nil
		}, func(d Daily, picked bool) { got.d, got.picked = d, picked })
		return err
	})
	return d, err
}

// todaysView is the couple's question of today as userID sees it: one read
// once the date is open, else the pick (a write) first.
func (s *Service) todaysView(ctx context.Context, userID string, c couple) (View, error) {
	d, msgs, err := s.repo.Conversation(ctx, c.partnershipID, c.today)
	if core.IsKind(err, core.KindNotFound) {
		if d, err = s.open(ctx, c); err != nil {
			return View{}, err
		}
		return s.view(ctx, c.locale, userID, d)
	}
	if err != nil {
		return View{}, err
	}
	return s.viewFor(c.locale, userID, d, msgs), nil
}

func (s *Service) view(ctx context.Context, locale, userID string, d Daily) (View, error) {
	msgs, err := s.repo.Messages(ctx, []string{d.ID})
	if err != nil {
		return View{}, err
	}
	return s.viewFor(locale, userID, d, msgs), nil
}

// notifyPartner tells the partner that the caller answered; the adapter
// logs a failure, which never fails the answer that is already stored.
func (s *Service) notifyPartner(ctx context.Context, partnerID string, partnerAnswered bool) {
	text := core.Msg("question.answered")
	if partnerAnswered {
		text = core.Msg("question.answeredToo")
	}
	_ = s.notifier.Notify(ctx, partnerID, CategoryNotify, text)
}

// Section, ExportUser and PurgeUser make the module a core.UserData owner.
func (s *Service) Section() string { return "questions" }

// ExportUser returns every answer, reply and reaction of the user, oldest
// first, with the question each belongs to.
func (s *Service) ExportUser(ctx context.Context, userID string) (any, error) {
	return s.repo.MessagesByUser(ctx, userID)
}

// PurgeUser deletes the user's conversation items and the reactions to them.
func (s *Service) PurgeUser(ctx context.Context, userID string) error {
	return s.repo.DeleteByUser(ctx, userID)
}

func errAnsweredAlready() error {
	return core.Conflict("conflict", "questions.haveAlreadyAnsweredTodayQuestion", "you have already answered today's question")
}

func errAnswerFirst() error {
	return core.Conflict("conflict", "questions.answerTodayQuestion", "answer today's question first")
}
