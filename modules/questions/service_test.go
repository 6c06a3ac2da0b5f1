package questions_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/mock/gomock"

	"tandem/adapters/i18n"
	"tandem/adapters/memory"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/questions"
)

// notes records notifications; fail makes every one fail.
type notes struct {
	mu   sync.Mutex
	sent []string
	fail bool
}

// english writes the notifications as the English reader reads them.
var english = i18n.MustLoad(nil)

func (n *notes) Notify(_ context.Context, userID, category string, text core.Message) error {
	title, message := english.Note("en", text)
	n.mu.Lock()
	defer n.mu.Unlock()
	n.sent = append(n.sent, userID+"|"+category+"|"+title+"|"+message)
	if n.fail {
		return errors.New("push service down")
	}
	return nil
}

func (n *notes) all() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.sent...)
}

// fixture is a Service on memory fakes with a fixed clock (2025-06-15 12:00
// UTC) and sequential ids; ann and bob are a couple (p1), cat is single.
type fixture struct {
	svc     *questions.Service
	repo    *memory.QuestionRepo
	couples *coretest.Couples
	zones   *coretest.Zones
	notes   *notes
	bus     *coretest.Events
	clock   *coretest.FixedClock
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{repo: memory.NewQuestionRepo(), couples: coretest.NewCouples(), zones: coretest.NewZones(),
		notes: &notes{}, bus: &coretest.Events{}, clock: coretest.NewClock(time.Time{})}
	f.couples.PairAs("p1", "ann", "bob")
	f.zones.Unknown("ghost")
	f.svc = questions.NewService(f.repo, f.couples, f.zones, f.notes, f.bus, f.clock, &coretest.SeqIDs{}, english)
	return f
}

func (f *fixture) today(t *testing.T, user string) questions.View {
	t.Helper()
	v, err := f.svc.Today(context.Background(), user)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func (f *fixture) act(t *testing.T, user string, a questions.Post) questions.View {
	t.Helper()
	v, err := f.svc.Act(context.Background(), user, a)
	if err != nil {
		t.Fatalf("%s %+v: %v", user, a, err)
	}
	return v
}

func answer(text string) questions.Post { return questions.Answer{Text: text} }

func reply(text, to string) questions.Post { return questions.Reply{Text: text, ReplyTo: to} }

func react(id, reaction string) questions.Post {
	return questions.React{MessageID: id, Reaction: reaction}
}

// show renders a conversation compactly: kind:user:text/reaction[>target][!locked].
func show(items []questions.Item) string {
	out := make([]string, len(items))
	for i, it := range items {
		s := string(it.Kind) + ":" + it.UserID + ":" + it.Text + it.Reaction
		if it.ReplyTo != "" {
			s += ">" + it.ReplyTo
		}
		if it.MessageID != "" {
			s += ">" + it.MessageID
		}
		if it.Locked {
			s += "!"
		}
		out[i] = s
	}
	return strings.Join(out, " ")
}

func zone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestTodayIsTheDateInEachPartnersOwnTimezone(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name           string
		at             time.Time
		annTZ, bobTZ   string // "" leaves it unset (UTC)
		annDay, bobDay string
	}{
		{"both unset: UTC", time.Date(2025, 6, 15, 23, 30, 0, 0, time.UTC), "", "", "2025-06-15", "2025-06-15"},
		{"Kiritimati is a day ahead of Honolulu", time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC),
			"Pacific/Kiritimati", "Pacific/Honolulu", "2025-06-16", "2025-06-15"},
		{"Tokyo's morning is New York's evening before", time.Date(2025, 6, 15, 2, 0, 0, 0, time.UTC),
			"Asia/Tokyo", "America/New_York", "2025-06-15", "2025-06-14"},
		{"same zone, after local midnight", time.Date(2025, 6, 15, 22, 30, 0, 0, time.UTC),
			"Europe/Paris", "Europe/Paris", "2025-06-16", "2025-06-16"},
		{"one unset, one west of UTC", time.Date(2025, 1, 1, 3, 0, 0, 0, time.UTC), "", "America/Los_Angeles",
			"2025-01-01", "2024-12-31"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.clock.Set(tc.at)
			if tc.annTZ != "" {
				f.zones.Set("ann", zone(t, tc.annTZ))
			}
			if tc.bobTZ != "" {
				f.zones.Set("bob", zone(t, tc.bobTZ))
			}
			a, b := f.today(t, "ann"), f.today(t, "bob")
			if a.Daily.Date.String() != tc.annDay || b.Daily.Date.String() != tc.bobDay {
				t.Fatalf("ann on %s, bob on %s", a.Daily.Date, b.Daily.Date)
			}
			if (a.Daily.ID == b.Daily.ID) != (tc.annDay == tc.bobDay) {
				t.Fatalf("same date must mean the same question: %+v / %+v", a.Daily, b.Daily)
			}
			// Whoever is behind reaches the other's date later and finds the
			// question the other already had, answer included.
			f.act(t, "ann", answer("ann's answer on "+tc.annDay))
			for range 3 {
				if v := f.today(t, "bob"); v.Daily.Date == a.Daily.Date {
					if v.Daily != a.Daily || !v.AnsweredByPartner || show(v.Conversation) != "answer:ann:!" {
						t.Fatalf("bob on ann's date: %+v %s", v.Daily, show(v.Conversation))
					}
					return
				}
				f.clock.Advance(24 * time.Hour)
			}
			t.Fatalf("bob never reached %s", a.Daily.Date)
		})
	}
}

func TestTheCoupleGetsOneQuestionPerDateEvenWhenBothOpenAtOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	views := make([]questions.View, 10)
	var wg sync.WaitGroup
	for i := range views {
		wg.Add(1)
		go func() {
			defer wg.Done()
			user := []string{"ann", "bob"}[i%2]
			v, err := f.svc.Today(context.Background(), user)
			if err != nil {
				t.Error(err)
			}
			views[i] = v
		}()
	}
	wg.Wait()
	for _, v := range views {
		if v.Daily != views[0].Daily {
			t.Fatalf("two questions for one date: %+v / %+v", views[0].Daily, v.Daily)
		}
	}
}

func TestAQuestionDoesNotReturnWithin30DaysOverNinetyDays(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.zones.Set("ann", zone(t, "Pacific/Kiritimati"))
	f.zones.Set("bob", zone(t, "Pacific/Honolulu"))
	byDate := map[core.Date]questions.Daily{}
	for i := range 90 {
		// Ann, a day ahead, usually opens first; every third day Bob does.
		users := []string{"ann", "bob"}
		if i%3 == 0 {
			users = []string{"bob", "ann"}
		}
		for _, u := range users {
			v := f.today(t, u)
			if prev, ok := byDate[v.Daily.Date]; ok && prev != v.Daily {
				t.Fatalf("%s: %s got %s, the partner had %s", v.Daily.Date, u, v.Daily.QuestionID, prev.QuestionID)
			}
			byDate[v.Daily.Date] = v.Daily
		}
		f.clock.Advance(24 * time.Hour)
	}
	if len(byDate) < 90 {
		t.Fatalf("%d dates", len(byDate))
	}
	for d, q := range byDate {
		if q.Text == "" || !q.Category.Valid() {
			t.Fatalf("%s: %+v", d, q)
		}
		for od, oq := range byDate {
			if gap := d.DaysUntil(od); od != d && oq.QuestionID == q.QuestionID && gap < 30 && gap > -30 {
				t.Fatalf("%s on %s and %s", q.QuestionID, d, od)
			}
		}
	}
}

func TestUnpairedUsersGetNotPaired(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	_, err := f.svc.Today(ctx, "cat")
	coretest.WantErr(t, err, core.KindConflict, "not_paired")
	_, err = f.svc.Act(ctx, "cat", answer("hi"))
	coretest.WantErr(t, err, core.KindConflict, "not_paired")
	_, _, err = f.svc.History(ctx, "cat", core.Page{})
	coretest.WantErr(t, err, core.KindConflict, "not_paired")
	_, err = f.svc.Act(ctx, "cat", reply(" ", "")) // bad input is a 400 first
	coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
	_, err = f.svc.Today(ctx, "ghost")
	if core.KindOf(err) != core.KindConflict {
		t.Fatalf("an unpaired ghost: %v", err)
	}
}

func TestActRules(t *testing.T) {
	t.Parallel()
	// Each case starts from ann and bob's today (the question is id-1), runs
	// setup, then the action; ids go id-2, id-3... in the order of writes.
	type step struct {
		user string
		a    questions.Post
	}
	cases := []struct {
		name     string
		setup    []step
		user     string
		a        questions.Post
		errKind  core.Kind // 0 (internal) with errCode "" means accepted
		errCode  string
		errMsg   string
		wantConv string // ann's view of the conversation afterwards
	}{
		{name: "answer", user: "ann", a: answer("  Our trip to Porto  "), wantConv: "answer:ann:Our trip to Porto"},
		{name: "answer of 2000 characters", user: "ann", a: answer(strings.Repeat("é", 2000)),
			wantConv: "answer:ann:" + strings.Repeat("é", 2000)},
		{name: "answer of 2001 characters", user: "ann", a: answer(strings.Repeat("é", 2001)),
			errKind: core.KindInvalid, errCode: "invalid_request", errMsg: "text must be at most 2000 characters"},
		{name: "blank answer", user: "ann", a: answer(" \n\t "),
			errKind: core.KindInvalid, errCode: "invalid_request", errMsg: "text is required"},
		{name: "answering again", setup: []step{{"ann", answer("first")}}, user: "ann", a: answer("second"),
			errKind: core.KindConflict, errCode: "conflict", errMsg: "you have already answered today's question",
			wantConv: "answer:ann:first"},
		{name: "both partners answer", setup: []step{{"bob", answer("bob's")}}, user: "ann", a: answer("ann's"),
			wantConv: "answer:bob:bob's answer:ann:ann's"},
		{name: "reply before answering", setup: []step{{"bob", answer("bob's")}}, user: "ann", a: reply("hm", ""),
			errKind: core.KindConflict, errCode: "conflict", errMsg: "answer today's question first",
			wantConv: "answer:bob:!"},
		{name: "reply without replyTo", setup: []step{{"ann", answer("a")}}, user: "ann", a: reply("more", ""),
			wantConv: "answer:ann:a reply:ann:more"},
		{name: "several replies to the partner's answer",
			setup: []step{{"ann", answer("a")}, {"bob", answer("b")}, {"ann", reply("one", "id-3")}},
			user:  "ann", a: reply("two", "id-3"),
			wantConv: "answer:ann:a answer:bob:b reply:ann:one>id-3 reply:ann:two>id-3"},
		{name: "reply to a reply", setup: []step{{"ann", answer("a")}, {"bob", answer("b")}, {"bob", reply("r", "id-2")}},
			user: "ann", a: reply("rr", "id-4"), wantConv: "answer:ann:a answer:bob:b reply:bob:r>id-2 reply:ann:rr>id-4"},
		{name: "reply to an unknown message", setup: []step{{"ann", answer("a")}}, user: "ann", a: reply("x", "nope"),
			errKind: core.KindNotFound, errCode: "not_found", errMsg: "no such message in today's conversation",
			wantConv: "answer:ann:a"},
		{name: "reply to a reaction", setup: []step{{"ann", answer("a")}, {"ann", react("id-2", "👍")}},
			user: "ann", a: reply("x", "id-3"),
			errKind: core.KindInvalid, errCode: "invalid_request", errMsg: "you can reply and react to answers and replies only",
			wantConv: "answer:ann:a reaction:ann:👍>id-2"},
		{name: "blank reply", setup: []step{{"ann", answer("a")}}, user: "ann", a: reply("  ", ""),
			errKind: core.KindInvalid, errCode: "invalid_request", errMsg: "text is required", wantConv: "answer:ann:a"},
		{name: "react before answering", setup: []step{{"bob", answer("b")}}, user: "ann", a: react("id-2", "❤️"),
			errKind: core.KindConflict, errCode: "conflict", errMsg: "answer today's question first", wantConv: "answer:bob:!"},
		{name: "react to the partner's answer", setup: []step{{"bob", answer("b")}, {"ann", answer("a")}},
			user: "ann", a: react("id-2", " ❤️ "), wantConv: "answer:bob:b answer:ann:a reaction:ann:❤️>id-2"},
		{name: "a second reaction replaces the first",
			setup: []step{{"bob", answer("b")}, {"ann", answer("a")}, {"ann", react("id-2", "❤️")}, {"ann", react("id-3", "😂")}},
			user:  "ann", a: react("id-2", "🔥"),
			wantConv: "answer:bob:b answer:ann:a reaction:ann:🔥>id-2 reaction:ann:😂>id-3"},
		{name: "reaction of 16 characters", setup: []step{{"ann", answer("a")}}, user: "ann",
			a: react("id-2", strings.Repeat("ha", 8)), wantConv: "answer:ann:a reaction:ann:" + strings.Repeat("ha", 8) + ">id-2"},
		{name: "reaction of 17 characters", setup: []step{{"ann", answer("a")}}, user: "ann",
			a: react("id-2", strings.Repeat("h", 17)), errKind: core.KindInvalid, errCode: "invalid_request",
			errMsg: "reaction must be at most 16 characters", wantConv: "answer:ann:a"},
		{name: "reaction with a control character", user: "ann", a: react("id-2", "a\u0007"),
			errKind: core.KindInvalid, errCode: "invalid_request", errMsg: "reaction must not hold control characters"},
		{name: "reaction missing", user: "ann", a: react("id-2", ""),
			errKind: core.KindInvalid, errCode: "invalid_request", errMsg: "reaction is required"},
		{name: "messageId missing", user: "ann", a: react(" ", "👍"),
			errKind: core.KindInvalid, errCode: "invalid_request", errMsg: "messageId is required"},
		{name: "react to an unknown message", setup: []step{{"ann", answer("a")}}, user: "ann", a: react("id-99", "👍"),
			errKind: core.KindNotFound, errCode: "not_found", errMsg: "no such message in today's conversation",
			wantConv: "answer:ann:a"},
		{name: "react to a reaction", setup: []step{{"ann", answer("a")}, {"ann", react("id-2", "👍")}}, user: "ann",
			a: react("id-3", "👍"), errKind: core.KindInvalid, errCode: "invalid_request",
			errMsg: "you can reply and react to answers and replies only", wantConv: "answer:ann:a reaction:ann:👍>id-2"},
		{name: "no post", user: "ann", a: nil,
			errKind: core.KindInvalid, errCode: "invalid_request", errMsg: "post an answer, a reply or a reaction"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.today(t, "ann") // the question is id-1
			for _, s := range tc.setup {
				f.act(t, s.user, s.a)
			}
			_, err := f.svc.Act(context.Background(), tc.user, tc.a)
			if tc.errCode != "" {
				coretest.WantErr(t, err, tc.errKind, tc.errCode)
				if core.As(err).Message != tc.errMsg {
					t.Fatalf("message %q", core.As(err).Message)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if got := show(f.today(t, "ann").Conversation); got != tc.wantConv {
				t.Fatalf("conversation\n got %s\nwant %s", got, tc.wantConv)
			}
		})
	}
}

func TestThePartnersAnswerIsLockedUntilTheReaderAnswers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	v := f.today(t, "bob")
	if v.AnsweredByMe || v.AnsweredByPartner || v.Conversation == nil || len(v.Conversation) != 0 {
		t.Fatalf("a fresh question: %+v", v)
	}
	f.act(t, "ann", answer("The lake"))            // id-2
	f.act(t, "ann", reply("and the boat", "id-2")) // id-3
	mine := f.act(t, "ann", react("id-2", "🥰"))    // id-4
	if show(mine.Conversation) != "answer:ann:The lake reply:ann:and the boat>id-2 reaction:ann:🥰>id-2" ||
		!mine.AnsweredByMe || mine.AnsweredByPartner {
		t.Fatalf("ann's own view: %s %+v", show(mine.Conversation), mine)
	}
	v = f.today(t, "bob")
	if show(v.Conversation) != "answer:ann:! reply:ann:>id-2! reaction:ann:🥰>id-2" || v.AnsweredByMe || !v.AnsweredByPartner {
		t.Fatalf("bob before answering: %s %+v", show(v.Conversation), v)
	}
	v = f.act(t, "bob", answer("The mountains"))
	if show(v.Conversation) != "answer:ann:The lake reply:ann:and the boat>id-2 reaction:ann:🥰>id-2 answer:bob:The mountains" ||
		!v.AnsweredByMe || !v.AnsweredByPartner {
		t.Fatalf("bob after answering: %s %+v", show(v.Conversation), v)
	}
	if v := f.today(t, "ann"); !v.AnsweredByMe || !v.AnsweredByPartner || v.Conversation[3].Locked {
		t.Fatalf("ann sees bob's answer: %s", show(v.Conversation))
	}
}

func TestHistoryIsNewestFirstAndPaged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	f.zones.Set("ann", zone(t, "Pacific/Kiritimati")) // a day ahead of bob (UTC)
	f.clock.Set(time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC))
	for i := range 35 {
		f.today(t, "bob")
		if i%2 == 0 {
			f.act(t, "bob", answer(fmt.Sprintf("bob %d", i)))
		}
		f.clock.Advance(24 * time.Hour)
	}
	f.clock.Advance(-24 * time.Hour) // bob's today is 2025-06-04 again; ann is on 06-05
	f.act(t, "ann", answer("ann ahead"))

	dates := func(vs []questions.View) string {
		out := make([]string, len(vs))
		for i, v := range vs {
			out[i] = v.Daily.Date.String()[5:]
		}
		return strings.Join(out, ",")
	}
	page, next, err := f.svc.History(ctx, "bob", core.Page{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page) != questions.DefaultHistory || page[0].Daily.Date.String() != "2025-06-04" || next == "" {
		t.Fatalf("first page: %d from %s, next %q", len(page), dates(page), next)
	}
	if show(page[0].Conversation) != "answer:bob:bob 34" || !page[0].AnsweredByMe || page[1].AnsweredByMe {
		t.Fatalf("bob's newest: %s", show(page[0].Conversation))
	}
	rest, last, err := f.svc.History(ctx, "bob", core.Page{Cursor: next})
	if err != nil {
		t.Fatal(err)
	}
	if dates(rest) != "05-05,05-04,05-03,05-02,05-01" || last != "" {
		t.Fatalf("second page %s next %q", dates(rest), last)
	}
	// ann, a day ahead, sees her today first; bob's answer there is locked
	// for her only where she has not answered.
	annPage, _, err := f.svc.History(ctx, "ann", core.Page{Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if dates(annPage) != "06-05,06-04,06-03" || show(annPage[1].Conversation) != "answer:bob:!" ||
		show(annPage[0].Conversation) != "answer:ann:ann ahead" {
		t.Fatalf("ann's history %s: %s / %s", dates(annPage), show(annPage[0].Conversation), show(annPage[1].Conversation))
	}
	for _, limit := range []int{101, -1} {
		_, _, err = f.svc.History(ctx, "bob", core.Page{Limit: limit})
		coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
	}
	all, _, err := f.svc.History(ctx, "bob", core.Page{Limit: questions.MaxHistory})
	if err != nil || len(all) != 35 {
		t.Fatalf("limit 100: %d, %v", len(all), err)
	}
	_, _, err = f.svc.History(ctx, "bob", core.Page{Cursor: "garbage"})
	coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
}

func TestAnswerNotifiesThePartnerOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ctrl := gomock.NewController(t)
	n := NewMockNotifier(ctrl)
	f := newFixture(t)
	svc := questions.NewService(f.repo, f.couples, f.zones, n, f.bus, f.clock, &coretest.SeqIDs{}, english)

	// ann answers first: bob is invited to answer too.
	n.EXPECT().Notify(gomock.Any(), "bob", "questions", core.Msg("question.answered")).Return(nil).Times(1)
	if _, err := svc.Act(ctx, "ann", answer("a")); err != nil {
		t.Fatal(err)
	}
	// replies, reactions and refused answers notify nobody.
	for _, a := range []questions.Post{reply("r", ""), react("id-2", "👍"), answer("again")} {
		_, _ = svc.Act(ctx, "ann", a)
	}
	// bob answers second, and the push fails: the answer stands.
	n.EXPECT().Notify(gomock.Any(), "ann", "questions", core.Msg("question.answeredToo")).Return(errors.New("push down")).Times(1)
	v, err := svc.Act(ctx, "bob", answer("b"))
	if err != nil || !v.AnsweredByMe {
		t.Fatalf("bob's answer with a failing notifier: %v %+v", err, v)
	}
}

func TestExportAndPurge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	if f.svc.Section() != "questions" {
		t.Fatal(f.svc.Section())
	}
	q := f.today(t, "ann").Daily
	f.act(t, "ann", answer("mine"))      // id-2
	f.act(t, "bob", answer("his"))       // id-3
	f.act(t, "bob", react("id-2", "❤️")) // id-4
	f.clock.Advance(time.Minute)
	f.act(t, "ann", reply("thanks", "id-3")) // id-5
	f.act(t, "ann", react("id-3", "👍"))      // id-6

	got, err := f.svc.ExportUser(ctx, "ann")
	if err != nil {
		t.Fatal(err)
	}
	at, later := f.clock.Now().Add(-time.Minute), f.clock.Now()
	want := []questions.Message{
		{ID: "id-2", DailyID: q.ID, UserID: "ann", Kind: "answer", Text: "mine", CreatedAt: at},
		{ID: "id-5", DailyID: q.ID, UserID: "ann", Kind: "reply", Text: "thanks", ReplyTo: "id-3", CreatedAt: later},
		{ID: "id-6", DailyID: q.ID, UserID: "ann", Kind: "reaction", Reaction: "👍", MessageID: "id-3", CreatedAt: later},
	}
	entries := got.([]questions.Entry)
	if len(entries) != len(want) {
		t.Fatalf("export %+v", entries)
	}
	for i, e := range entries {
		if e.Daily != q || e.Message != want[i] {
			t.Fatalf("export[%d]\n got %+v\nwant %+v", i, e.Message, want[i])
		}
	}
	if err := f.svc.PurgeUser(ctx, "ann"); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.PurgeUser(ctx, "ann"); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.svc.ExportUser(ctx, "ann"); fmt.Sprint(got) != "[]" {
		t.Fatalf("after purge: %v", got)
	}
	// bob keeps his answer; his reaction to ann's answer went with it.
	if v := f.today(t, "bob"); show(v.Conversation) != "answer:bob:his" || v.Daily != q {
		t.Fatalf("bob after ann's purge: %s", show(v.Conversation))
	}
}

func TestNotificationFailureIsNotTheAnswersFailure(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.notes.fail = true
	v := f.act(t, "ann", answer("still saved"))
	if !v.AnsweredByMe || len(f.notes.all()) != 1 {
		t.Fatalf("%+v, notes %v", v, f.notes.all())
	}
}

func TestARefusedReplyOrReactionPicksNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	for _, a := range []questions.Post{reply("first!", ""), react("id-1", "👍")} {
		_, err := f.svc.Act(ctx, "ann", a)
		coretest.WantErr(t, err, core.KindConflict, "conflict")
	}
	if _, err := f.repo.Find(ctx, "p1", core.Date{Year: 2025, Month: time.June, Day: 15}); !core.IsKind(err, core.KindNotFound) {
		t.Fatalf("a question was picked for a refusal: %v", err)
	}
	if v := f.act(t, "ann", answer("now")); v.Daily.ID != "id-1" || !v.AnsweredByMe {
		t.Fatalf("the answer opens the date: %+v", v)
	}
}

// TestPostsAreAnnouncedToBothPartnersEachWithTheirOwnView: an answer, a
// reply or a reaction is a live event for both partners, each with the
// question exactly as their own GET returns it (the partner's answer locked
// for a reader who has not answered). Never a stranger, an ex-partner, a
// couple that unpaired while the post was stored, nor a partner whose today
// is another date; a refused post announces nothing.
func TestPostsAreAnnouncedToBothPartnersEachWithTheirOwnView(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	annAnswered := func(f *fixture) { f.act(t, "ann", answer("Lisbon")) }
	cases := []struct {
		name    string
		setup   func(f *fixture) // ann and bob are a couple (p1), eve and mal another
		during  func(f *fixture) // after the post is stored, before it is announced
		user    string
		post    questions.Post
		live    string   // the event type; "" when refused
		readers []string // who hears of it
		locked  string   // a reader whose view locks the other's answer
	}{
		{name: "the first answer: both, locked for the partner", user: "ann", post: answer("Lisbon"),
			live: "question.answered", readers: []string{"ann", "bob"}, locked: "bob"},
		{name: "a reply: both", setup: annAnswered, user: "ann", post: reply("and you?", "id-2"),
			live: "question.replied", readers: []string{"ann", "bob"}, locked: "bob"},
		{name: "the second answer: both, unlocked", setup: annAnswered, user: "bob", post: answer("Porto"),
			live: "question.answered", readers: []string{"ann", "bob"}},
		{name: "a reaction: both", setup: func(f *fixture) { annAnswered(f); f.act(t, "bob", answer("Porto")) },
			user: "bob", post: react("id-2", "❤️"), live: "question.reacted", readers: []string{"ann", "bob"}},
		{name: "the partner a date behind: only the one who posted",
			setup: func(f *fixture) {
				f.zones.Set("bob", zone(t, "Pacific/Pago_Pago"))
				f.clock.Set(time.Date(2025, 6, 15, 5, 0, 0, 0, time.UTC))
			},
			user: "ann", post: answer("Lisbon"), live: "question.answered", readers: []string{"ann"}},
		{name: "re-paired: the new partner, never the ex-partner",
			setup: func(f *fixture) { f.couples.Unpair("ann", "bob"); f.couples.PairAs("p2", "ann", "cid") },
			user:  "ann", post: answer("Lisbon"), live: "question.answered", readers: []string{"ann", "cid"}, locked: "cid"},
		{name: "unpaired while it was stored: nobody", during: func(f *fixture) { f.couples.Unpair("ann", "bob") },
			user: "ann", post: answer("Lisbon"), live: "question.answered"},
		{name: "re-paired while it was stored: nobody",
			during: func(f *fixture) { f.couples.Unpair("ann", "bob"); f.couples.PairAs("p2", "ann", "cid") },
			user:   "ann", post: answer("Lisbon"), live: "question.answered"},
		{name: "the ex-partner's answer is refused: nothing", setup: func(f *fixture) { annAnswered(f); f.couples.Unpair("ann", "bob") },
			user: "bob", post: answer("Porto")},
		{name: "a reaction before answering is refused: nothing", setup: annAnswered, user: "bob", post: react("id-2", "👍")},
		{name: "a second answer is refused: nothing", setup: annAnswered, user: "ann", post: answer("again")},
		{name: "a single user's answer is refused: nothing", user: "cat", post: answer("hi")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.couples.PairAs("p9", "eve", "mal")
			if tc.setup != nil {
				tc.setup(f)
			}
			f.bus.Reset() // forget the setup's
			svc := f.svc
			if tc.during != nil {
				svc = questions.NewService(hookedRepo{f.repo, func() { tc.during(f) }}, f.couples, f.zones, f.notes, f.bus,
					f.clock, &coretest.SeqIDs{}, english)
			}
			_, err := svc.Act(ctx, tc.user, tc.post)
			if tc.live == "" {
				if err == nil {
					t.Fatal("accepted")
				}
				f.bus.WantLive(t)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(tc.readers) == 0 {
				f.bus.WantLive(t)
				return
			}
			want := core.Live{Type: tc.live, For: map[string]any{}}
			for _, r := range tc.readers {
				v := f.today(t, r) // what the reader's own GET returns
				want.For[r] = v
				locked := strings.Contains(show(v.Conversation), "!")
				if locked != (r == tc.locked) {
					t.Fatalf("%s's view %s", r, show(v.Conversation))
				}
			}
			f.bus.WantLive(t, want)
		})
	}
}

// hookedRepo runs after once an answer, a reply or a reaction is stored.
type hookedRepo struct {
	questions.Repository
	after func()
}

func (r hookedRepo) AddMessage(ctx context.Context, m questions.Message) error {
	if err := r.Repository.AddMessage(ctx, m); err != nil {
		return err
	}
	r.after()
	return nil
}

func (r hookedRepo) React(ctx context.Context, m questions.Message) (questions.Message, error) {
	out, err := r.Repository.React(ctx, m)
	if err == nil {
		r.after()
	}
	return out, err
}

// TestAnsweredOnReadsWithoutPicking: the daily reminder's question. Unpaired
// is not paired; a date nobody opened is unanswered and stays unopened; a
// reply or the partner's answer is not the user's answer.
func TestAnsweredOnReadsWithoutPicking(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	day := core.DateOf(f.clock.Now())
	check := func(user string, d core.Date, wantPaired, wantAnswered bool) {
		t.Helper()
		paired, answered, err := f.svc.AnsweredOn(ctx, user, d)
		if err != nil || paired != wantPaired || answered != wantAnswered {
			t.Fatalf("%s on %s: paired %v answered %v (%v), want %v %v", user, d, paired, answered, err, wantPaired, wantAnswered)
		}
	}
	check("cat", day, false, false)
	check("ann", day, true, false)
	if _, err := f.repo.Find(ctx, "p1", day); !core.IsKind(err, core.KindNotFound) {
		t.Fatalf("asking picked a question: %v", err)
	}
	f.act(t, "bob", answer("bob's"))
	check("ann", day, true, false)
	check("bob", day, true, true)
	f.act(t, "bob", reply("more", ""))
	f.act(t, "ann", answer("ann's"))
	check("ann", day, true, true)
	check("ann", day.AddDays(1), true, false)
	check("ann", day.AddDays(-1), true, false)
}
