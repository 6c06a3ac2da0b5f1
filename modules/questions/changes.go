package questions

import (
	"cmp"
	"context"
	"slices"
	"time"

	"tandem/core"
)

// The feed's question (issue 47): a post to the conversation of the
// couple's question (an answer, a reply, a reaction) puts the question to
// both partners, each as their own GET .../daily-question returns it (the
// partner's answer locked for a reader who has not answered, the couple's
// streak), keyed by the question's id. As announce, a partner whose today
// is another date reads another question: nothing for them.

// postChanges are the feed's puts of m posted to d, whose conversation
// was msgs: the views after the write, computed from what it adds.
func (s *Service) postChanges(ctx context.Context, c couple, d Daily, msgs []Message, m Message) ([]core.Change, error) {
	after := withPost(msgs, m)
	loc, err := s.users.Location(ctx, c.partnerID)
	if err != nil {
		return nil, err
	}
	theirs := core.Today(s.clock.Now(), loc)
	today := c.today
	if theirs.Before(today) {
		today = theirs
	}
	days, err := s.repo.AnsweredByBoth(ctx, c.partnershipID)
	if err != nil {
		return nil, err
	}
	if m.Kind == KindAnswer && answered(c.partnerID, msgs) && !slices.Contains(days, d.Date) {
		days = append(slices.Clone(days), d.Date)
		slices.SortFunc(days, func(a, b core.Date) int { return a.Time().Compare(b.Time()) })
	}
	streak := StreakOf(days, today)
	var cs []core.Change
	for _, r := range []struct {
		user   string
		today  core.Date
		locale string
	}{{m.UserID, c.today, c.locale}, {c.partnerID, theirs, ""}} {
		if r.today != d.Date {
			continue
		}
		if r.locale == "" {
			if r.locale, err = s.users.Locale(ctx, r.user); err != nil {
				return nil, err
			}
		}
		v := s.viewFor(r.locale, r.user, d, after)
		v.Streak = streak
		cs = append(cs, core.Put(r.user, core.ChangeQuestion, d.ID, v))
	}
	return core.Through(c.partnershipID, cs...), nil // the couple's: none once it ended
}

// withPost is msgs with m stored, in the store's order (by time to the
// millisecond, then id): an answer or a reply added, a reaction added or
// replacing the poster's reaction to the same item (its id kept, m's time).
func withPost(msgs []Message, m Message) []Message {
	out, replaced := slices.Clone(msgs), false
	if m.Kind == KindReaction {
		for i, o := range out {
			if o.Kind == KindReaction && o.UserID == m.UserID && o.MessageID == m.MessageID {
				o.Reaction, o.CreatedAt = m.Reaction, m.CreatedAt
				out[i], replaced = o, true
			}
		}
	}
	if !replaced {
		out = append(out, m)
	}
	slices.SortStableFunc(out, func(a, b Message) int {
		if c := cmp.Compare(a.CreatedAt.UnixMilli(), b.CreatedAt.UnixMilli()); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out
}

// pickChanges are the feed's puts of the pick of c's question of today, to
// each partner whose today it is, as their GET .../daily-question returns
// it (no conversation yet, the couple's streak). opened says, in the
// write's transaction, which question the write opened and whether it
// picked it: of two first reads at once only the one that picked records.
func (s *Service) pickChanges(ctx context.Context, c couple, opened func() (Daily, bool)) ([]core.Change, error) {
	streak, err := s.streak(ctx, c)
	if err != nil {
		return nil, err
	}
	loc, err := s.users.Location(ctx, c.partnerID)
	if err != nil {
		return nil, err
	}
	readers := []struct{ user, locale string }{{c.partnerID, ""}, {c.userID, c.locale}}
	if core.Today(s.clock.Now(), loc) != c.today {
		readers = readers[1:] // the partner reads another date's question
	}
	var cs []core.Change
	for _, r := range readers {
		if r.locale == "" {
			if r.locale, err = s.users.Locale(ctx, r.user); err != nil {
				return nil, err
			}
		}
		cs = append(cs, core.PutMade(r.user, core.ChangeQuestion, func() (string, any) {
			d, picked := opened()
			if !picked {
				return d.ID, core.NoChange{}
			}
			v := s.viewFor(r.locale, r.user, d, nil)
			v.Streak = streak
			return d.ID, v
		}))
	}
	return core.Through(c.partnershipID, cs...), nil // the couple's: none once it ended
}

// post runs write, the store's of m, with its feed's puts.
func (s *Service) post(ctx context.Context, c couple, d Daily, msgs []Message, m Message, write func(context.Context) error) error {
	cs, err := s.postChanges(ctx, c, d, msgs, m)
	if err != nil {
		return err
	}
	return core.WriteWithChanges(ctx, s.bus, cs, write)
}

// LostWith are the deletes, for reader, of the questions of the
// partnership: without it, GET .../daily-question is 409 and the history
// holds none of them (core.SharedData). Every date the couple opened, to
// the latest any timezone has reached.
func (s *Service) LostWith(ctx context.Context, partnershipID, reader, _ string) ([]core.Change, error) {
	until := core.Today(s.clock.Now().Add(48*time.Hour), time.UTC)
	return core.EveryPage(func(p core.Page) ([]Daily, string, error) {
		return s.repo.History(ctx, partnershipID, until, p)
	}, func(d Daily) core.Change { return core.Delete(reader, core.ChangeQuestion, d.ID) })
}
