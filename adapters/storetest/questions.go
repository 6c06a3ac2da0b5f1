package storetest

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/questions"
)

// QuestionRepository checks a questions.Repository implementation.
func QuestionRepository(t *testing.T, newRepo func(t *testing.T) questions.Repository) {
	s := questionSuite{newRepo: newRepo, day: core.Date{Year: 2025, Month: time.June, Day: 15}}
	t.Run("open picks once per partnership and date, every field round-trips", s.openOnce)
	t.Run("pick sees the couple's dates less than 30 days away, in date order", s.pickSeesRecentDates)
	t.Run("a failing pick stores nothing", s.failingPick)
	t.Run("concurrent first opens of a date agree on one question", s.concurrentOpens)
	t.Run("history: newest first, up to a date, paged, per couple", s.history)
	t.Run("messages: time order over several questions, one answer per user", s.messagesOrder)
	t.Run("react: one reaction per user and item, replaced in place", s.react)
	t.Run("concurrent first reactions of a user to an item leave one", s.concurrentReactions)
	t.Run("answered by both: the dates of two answers, oldest first, per couple", s.answeredByBoth)
	t.Run("messages by user carry their question; delete takes the reactions to them", s.messagesByUser)
}

// questionSuite holds QuestionRepository's helpers and subtests.
type questionSuite struct {
	newRepo func(t *testing.T) questions.Repository
	day     core.Date
}

func (questionSuite) daily(id, pid string, d core.Date) questions.Daily {
	return questions.Daily{ID: id, PartnershipID: pid, Date: d, QuestionID: "q-" + id, Text: "text of " + id,
		Category: questions.CategoryDeep, CreatedAt: now}
}

// open stores d (when its date is new) and returns what Open returned.
func (questionSuite) open(t *testing.T, r questions.Repository, d questions.Daily) questions.Daily {
	t.Helper()
	got, err := r.Open(ctx, d.PartnershipID, d.Date, func([]questions.Daily) (questions.Daily, error) { return d, nil }, nil)
	must(t, err)
	return got
}

func (questionSuite) msg(id, dailyID, user string, kind questions.Kind, at time.Time) questions.Message {
	m := questions.Message{ID: id, DailyID: dailyID, UserID: user, Kind: kind, CreatedAt: at}
	if kind == questions.KindReaction {
		m.Reaction = "❤️"
	} else {
		m.Text = "text " + id
	}
	return m
}

func (questionSuite) dates(ds []questions.Daily) string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Date.String()
	}
	return strings.Join(out, ",")
}

func (questionSuite) msgIDs(ms []questions.Message) string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return strings.Join(out, ",")
}

func (questionSuite) messages(t *testing.T, r questions.Repository, dailyIDs ...string) []questions.Message {
	t.Helper()
	ms, err := r.Messages(ctx, dailyIDs)
	must(t, err)
	return ms
}

func (s questionSuite) openOnce(t *testing.T) {
	r := s.newRepo(t)
	want := s.daily("d1", "p1", s.day)
	want.Text, want.Category = "Ünïcode — “quotes” 💞", questions.CategoryFun
	want.CreatedAt = time.UnixMilli(1718452800123).UTC()
	calls := 0
	var opened []string // what each open said it opened (the feed's pick change follows it)
	record := func(d questions.Daily, picked bool) { opened = append(opened, fmt.Sprint(d.ID, " ", picked)) }
	got, err := r.Open(ctx, "p1", s.day, func(nearby []questions.Daily) (questions.Daily, error) {
		calls++
		if len(nearby) != 0 {
			t.Fatalf("nearby of a new couple: %v", nearby)
		}
		return want, nil
	}, record)
	must(t, err)
	if got != want {
		t.Fatalf("opened %+v", got)
	}
	again, err := r.Open(ctx, "p1", s.day, func([]questions.Daily) (questions.Daily, error) {
		calls++
		return s.daily("d2", "p1", s.day), nil
	}, record)
	must(t, err)
	if again != want || calls != 1 {
		t.Fatalf("second open %+v, %d picks", again, calls)
	}
	if len(opened) != 2 || opened[0] != "d1 true" || opened[1] != "d1 false" {
		t.Fatalf("opened said %q, want the pick then the stored one", opened)
	}
	if other := s.open(t, r, s.daily("d3", "p2", s.day)); other.ID != "d3" {
		t.Fatalf("another couple's date: %+v", other)
	}
	found, err := r.Find(ctx, "p1", s.day)
	must(t, err)
	if found != want {
		t.Fatalf("found %+v", found)
	}
	_, err = r.Find(ctx, "p1", s.day.AddDays(1))
	wantKind(t, err, core.KindNotFound)
	_, err = r.Find(ctx, "p9", s.day)
	wantKind(t, err, core.KindNotFound)
}

func (s questionSuite) pickSeesRecentDates(t *testing.T) {
	r := s.newRepo(t)
	for i, off := range []int{29, -30, 30, -29, 3, 1} {
		s.open(t, r, s.daily(fmt.Sprintf("d%d", i), "p1", s.day.AddDays(off)))
	}
	s.open(t, r, s.daily("other", "p2", s.day))
	var seen []questions.Daily
	_, err := r.Open(ctx, "p1", s.day, func(nearby []questions.Daily) (questions.Daily, error) {
		seen = nearby
		return s.daily("today", "p1", s.day), nil
	}, nil)
	must(t, err)
	if got := s.dates(seen); got != "2025-05-17,2025-06-16,2025-06-18,2025-07-14" {
		t.Fatalf("nearby %s", got)
	}
	if seen[0].QuestionID != "q-d3" || seen[0].Text != "text of d3" {
		t.Fatalf("nearby fields %+v", seen[0])
	}
}

func (s questionSuite) failingPick(t *testing.T) {
	r := s.newRepo(t)
	boom := errors.New("boom")
	_, err := r.Open(ctx, "p1", s.day, func([]questions.Daily) (questions.Daily, error) { return questions.Daily{}, boom }, nil)
	if !errors.Is(err, boom) {
		t.Fatalf("pick error: %v", err)
	}
	if got := s.open(t, r, s.daily("d1", "p1", s.day)); got.ID != "d1" {
		t.Fatalf("after a failed pick: %+v", got)
	}
}

func (s questionSuite) concurrentOpens(t *testing.T) {
	r := s.newRepo(t)
	var n atomic.Int64
	got := make([]questions.Daily, 8)
	fns := make([]func() error, len(got))
	for i := range fns {
		fns[i] = func() error {
			var err error
			got[i], err = r.Open(ctx, "p1", s.day, func([]questions.Daily) (questions.Daily, error) {
				return s.daily(fmt.Sprintf("d%d", n.Add(1)), "p1", s.day), nil
			}, nil)
			return err
		}
	}
	for _, err := range race(fns...) {
		must(t, err)
	}
	for _, d := range got {
		if d.ID != got[0].ID {
			t.Fatalf("two questions for one date: %s and %s", got[0].ID, d.ID)
		}
	}
	hist, _, err := r.History(ctx, "p1", s.day, core.Page{})
	must(t, err)
	if len(hist) != 1 {
		t.Fatalf("stored %d questions", len(hist))
	}
}

func (s questionSuite) history(t *testing.T) {
	r := s.newRepo(t)
	for i := -5; i <= 1; i++ {
		s.open(t, r, s.daily(fmt.Sprintf("d%d", i+5), "p1", s.day.AddDays(i)))
	}
	s.open(t, r, s.daily("other", "p2", s.day))
	all, next, err := r.History(ctx, "p1", s.day, core.Page{})
	must(t, err)
	if s.dates(all) != "2025-06-15,2025-06-14,2025-06-13,2025-06-12,2025-06-11,2025-06-10" || next != "" {
		t.Fatalf("all %s next %q", s.dates(all), next)
	}
	p1, next, err := r.History(ctx, "p1", s.day, core.Page{Limit: 4})
	must(t, err)
	if s.dates(p1) != "2025-06-15,2025-06-14,2025-06-13,2025-06-12" || next == "" {
		t.Fatalf("page 1 %s next %q", s.dates(p1), next)
	}
	p2, next2, err := r.History(ctx, "p1", s.day, core.Page{Limit: 4, Cursor: next})
	must(t, err)
	if s.dates(p2) != "2025-06-11,2025-06-10" || next2 != "" {
		t.Fatalf("page 2 %s next %q", s.dates(p2), next2)
	}
	exact, next, err := r.History(ctx, "p1", s.day, core.Page{Limit: 6})
	must(t, err)
	if len(exact) != 6 || next != "" {
		t.Fatalf("a full last page: %d, next %q", len(exact), next)
	}
	_, _, err = r.History(ctx, "p1", s.day, core.Page{Limit: 2, Cursor: "not-a-cursor"})
	wantKind(t, err, core.KindInvalid)
	_, _, err = r.History(ctx, "p1", s.day, core.Page{Limit: 2, Cursor: core.EncodeCursor("2025-13-01")})
	wantKind(t, err, core.KindInvalid)
	none, _, err := r.History(ctx, "p3", s.day, core.Page{})
	must(t, err)
	if len(none) != 0 {
		t.Fatalf("unknown couple: %v", none)
	}
}

func (s questionSuite) messagesOrder(t *testing.T) {
	r := s.newRepo(t)
	d1, d2 := s.open(t, r, s.daily("d1", "p1", s.day)), s.open(t, r, s.daily("d2", "p1", s.day.AddDays(1)))
	full := s.msg("m1", d1.ID, "u1", questions.KindAnswer, time.UnixMilli(1718452800123).UTC())
	full.Text = strings.Repeat("é", questions.MaxText)
	must(t, r.AddMessage(ctx, full))
	reply := s.msg("m0", d1.ID, "u1", questions.KindReply, now.Add(time.Minute))
	reply.ReplyTo = "m1"
	must(t, r.AddMessage(ctx, reply))
	must(t, r.AddMessage(ctx, s.msg("m2", d1.ID, "u2", questions.KindAnswer, now.Add(time.Minute)))) // same time: by id
	must(t, r.AddMessage(ctx, s.msg("m3", d1.ID, "u1", questions.KindReply, now.Add(2*time.Minute))))
	must(t, r.AddMessage(ctx, s.msg("m4", d2.ID, "u1", questions.KindAnswer, now))) // another question
	wantKind(t, r.AddMessage(ctx, s.msg("m5", d1.ID, "u1", questions.KindAnswer, now.Add(time.Hour))), core.KindConflict)
	wantKind(t, r.AddMessage(ctx, s.msg("m3", d2.ID, "u2", questions.KindReply, now)), core.KindConflict) // id taken

	got := s.messages(t, r, d1.ID)
	if s.msgIDs(got) != "m1,m0,m2,m3" {
		t.Fatalf("conversation %s", s.msgIDs(got))
	}
	if got[0] != full || got[1] != reply {
		t.Fatalf("round trip %+v / %+v", got[0], got[1])
	}
	if ids := s.msgIDs(s.messages(t, r, d1.ID, d2.ID)); ids != "m1,m4,m0,m2,m3" {
		t.Fatalf("two questions %s", ids)
	}
	if len(s.messages(t, r)) != 0 || len(s.messages(t, r, "nope")) != 0 {
		t.Fatal("messages of nothing")
	}

	d, conv, err := r.Conversation(ctx, "p1", s.day)
	must(t, err)
	if d != d1 || s.msgIDs(conv) != "m1,m0,m2,m3" || conv[0] != full || conv[1] != reply {
		t.Fatalf("conversation in one read: %+v %s", d, s.msgIDs(conv))
	}
	d, conv, err = r.Conversation(ctx, "p1", s.day.AddDays(1))
	must(t, err)
	if d != d2 || s.msgIDs(conv) != "m4" {
		t.Fatalf("the other day's: %+v %s", d, s.msgIDs(conv))
	}
	quiet := s.open(t, r, s.daily("d3", "p1", s.day.AddDays(2)))
	d, conv, err = r.Conversation(ctx, "p1", s.day.AddDays(2))
	must(t, err)
	if d != quiet || conv == nil || len(conv) != 0 {
		t.Fatalf("a question nobody answered: %+v %v", d, conv)
	}
	_, _, err = r.Conversation(ctx, "p2", s.day)
	wantKind(t, err, core.KindNotFound)
	_, _, err = r.Conversation(ctx, "p1", s.day.AddDays(3))
	wantKind(t, err, core.KindNotFound)
}

func (s questionSuite) react(t *testing.T) {
	r := s.newRepo(t)
	d := s.open(t, r, s.daily("d1", "p1", s.day))
	must(t, r.AddMessage(ctx, s.msg("a1", d.ID, "u1", questions.KindAnswer, now)))
	must(t, r.AddMessage(ctx, s.msg("a2", d.ID, "u2", questions.KindAnswer, now.Add(time.Second))))
	first := s.msg("r1", d.ID, "u2", questions.KindReaction, now.Add(time.Minute))
	first.MessageID = "a1"
	got, err := r.React(ctx, first)
	must(t, err)
	if got != first {
		t.Fatalf("first reaction %+v", got)
	}
	second := s.msg("r2", d.ID, "u2", questions.KindReaction, now.Add(time.Hour))
	second.MessageID, second.Reaction = "a1", "🔥"
	got, err = r.React(ctx, second)
	must(t, err)
	want := first
	want.Reaction, want.CreatedAt = "🔥", now.Add(time.Hour)
	if got != want {
		t.Fatalf("replaced %+v", got)
	}
	own := s.msg("r3", d.ID, "u1", questions.KindReaction, now.Add(2*time.Minute))
	own.MessageID = "a1"
	_, err = r.React(ctx, own)
	must(t, err)
	other := s.msg("r4", d.ID, "u2", questions.KindReaction, now.Add(3*time.Minute))
	other.MessageID = "a2"
	_, err = r.React(ctx, other)
	must(t, err)
	if ids := s.msgIDs(s.messages(t, r, d.ID)); ids != "a1,a2,r3,r4,r1" {
		t.Fatalf("conversation %s", ids)
	}
	if ms := s.messages(t, r, d.ID); ms[4] != want {
		t.Fatalf("stored %+v", ms[4])
	}
}

func (s questionSuite) concurrentReactions(t *testing.T) {
	r := s.newRepo(t)
	d := s.open(t, r, s.daily("d1", "p1", s.day))
	must(t, r.AddMessage(ctx, s.msg("a1", d.ID, "u1", questions.KindAnswer, now)))
	fns := make([]func() error, 6)
	for i := range fns {
		fns[i] = func() error {
			m := s.msg(fmt.Sprintf("r%d", i), d.ID, "u2", questions.KindReaction, now.Add(time.Duration(i)*time.Second))
			m.MessageID = "a1"
			_, err := r.React(ctx, m)
			return err
		}
	}
	for _, err := range race(fns...) {
		must(t, err)
	}
	if ms := s.messages(t, r, d.ID); len(ms) != 2 {
		t.Fatalf("reactions stored: %s", s.msgIDs(ms))
	}
}

func (s questionSuite) answeredByBoth(t *testing.T) {
	r := s.newRepo(t)
	both := func(t *testing.T, pid string) string {
		t.Helper()
		ds, err := r.AnsweredByBoth(ctx, pid)
		must(t, err)
		out := make([]string, len(ds))
		for i, d := range ds {
			out[i] = d.String()
		}
		return strings.Join(out, ",")
	}
	if got := both(t, "p1"); got != "" {
		t.Fatalf("a couple without questions: %s", got)
	}
	// opened out of date order; answered, half answered and not answered
	today := s.open(t, r, s.daily("d1", "p1", s.day))
	early := s.open(t, r, s.daily("d2", "p1", s.day.AddDays(-10)))
	half := s.open(t, r, s.daily("d3", "p1", s.day.AddDays(-1)))
	s.open(t, r, s.daily("d4", "p1", s.day.AddDays(1)))
	twoDaysAgo := s.open(t, r, s.daily("d5", "p1", s.day.AddDays(-2)))
	theirs := s.open(t, r, s.daily("o1", "p2", s.day.AddDays(-1)))
	at := now
	add := func(id string, d questions.Daily, user string, kind questions.Kind) {
		t.Helper()
		at = at.Add(time.Second)
		m := s.msg(id, d.ID, user, kind, at)
		if kind == questions.KindReaction {
			m.MessageID = "a-" + d.ID + "-u1"
			_, err := r.React(ctx, m)
			must(t, err)
			return
		}
		must(t, r.AddMessage(ctx, m))
	}
	for _, d := range []questions.Daily{today, early, twoDaysAgo, theirs} {
		add("a-"+d.ID+"-u1", d, "u1", questions.KindAnswer)
		add("a-"+d.ID+"-u2", d, "u2", questions.KindAnswer)
	}
	add("a-d3-u1", half, "u1", questions.KindAnswer) // the partner only replies and reacts: not answered by both
	add("p-d3-u2", half, "u2", questions.KindReply)
	add("p-d3-u1", half, "u1", questions.KindReply)
	add("r-d3-u2", half, "u2", questions.KindReaction)
	if got := both(t, "p1"); got != "2025-06-05,2025-06-13,2025-06-15" {
		t.Fatalf("p1 answered by both on %s", got)
	}
	if got := both(t, "p2"); got != "2025-06-14" {
		t.Fatalf("p2 answered by both on %s", got)
	}
	must(t, r.DeleteByUser(ctx, "u2"))
	if got := both(t, "p1"); got != "" {
		t.Fatalf("after the partner's purge: %s", got)
	}
}

func (s questionSuite) messagesByUser(t *testing.T) {
	r := s.newRepo(t)
	d1, d2 := s.open(t, r, s.daily("d1", "p1", s.day)), s.open(t, r, s.daily("d2", "p1", s.day.AddDays(1)))
	must(t, r.AddMessage(ctx, s.msg("a1", d1.ID, "u1", questions.KindAnswer, now)))
	must(t, r.AddMessage(ctx, s.msg("a2", d1.ID, "u2", questions.KindAnswer, now.Add(time.Second))))
	reply := s.msg("p2", d1.ID, "u2", questions.KindReply, now.Add(2*time.Second))
	reply.ReplyTo = "a1"
	must(t, r.AddMessage(ctx, reply))
	mine := s.msg("r1", d1.ID, "u1", questions.KindReaction, now.Add(3*time.Second))
	mine.MessageID = "a2"
	_, err := r.React(ctx, mine)
	must(t, err)
	theirs := s.msg("r2", d1.ID, "u2", questions.KindReaction, now.Add(4*time.Second))
	theirs.MessageID = "a1"
	_, err = r.React(ctx, theirs)
	must(t, err)
	must(t, r.AddMessage(ctx, s.msg("a3", d2.ID, "u1", questions.KindAnswer, now.Add(-time.Hour))))

	entries, err := r.MessagesByUser(ctx, "u1")
	must(t, err)
	if len(entries) != 3 || entries[0].Message.ID != "a3" || entries[1].Message.ID != "a1" || entries[2].Message.ID != "r1" {
		t.Fatalf("entries %+v", entries)
	}
	if entries[0].Daily != d2 || entries[1].Daily != d1 || entries[1].Message != s.msg("a1", d1.ID, "u1", questions.KindAnswer, now) {
		t.Fatalf("entry fields %+v", entries[:2])
	}

	must(t, r.DeleteByUser(ctx, "u1"))
	must(t, r.DeleteByUser(ctx, "u1"))
	if ids := s.msgIDs(s.messages(t, r, d1.ID, d2.ID)); ids != "a2,p2" { // r2 reacted to a1: gone with it
		t.Fatalf("after purge %s", ids)
	}
	if entries, _ := r.MessagesByUser(ctx, "u1"); len(entries) != 0 {
		t.Fatalf("purged user still has %v", entries)
	}
	if got := s.open(t, r, s.daily("x", "p1", s.day)); got != d1 {
		t.Fatalf("the couple's question is kept: %+v", got)
	}
}
