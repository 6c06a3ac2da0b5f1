package questions_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

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
