package messages_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/mock/gomock"

	"tandem/adapters/memory"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/messages"
	"tandem/modules/throttle"
)

// fixture is a Service on memory fakes with a fixed clock (2025-06-15 12:00
// UTC) and sequential ids (id-1, id-2, ...).
type fixture struct {
	svc     *messages.Service
	repo    *memory.MessageRepo
	couples *coretest.Couples
	notes   *coretest.Activities
	bus     *coretest.Events
	clock   *coretest.FixedClock
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{repo: memory.NewMessageRepo(), couples: coretest.NewCouples(), notes: &coretest.Activities{},
		bus: &coretest.Events{}, clock: coretest.NewClock(time.Time{})}
	f.svc = messages.NewService(f.repo, f.couples, f.notes, f.bus, limiter(f.clock), messages.Settings{}, f.clock, &coretest.SeqIDs{})
	return f
}

// limiter is the real limiter over memory counters, on clock.
func limiter(clock core.Clock) core.Limiter {
	return throttle.NewLimiter(memory.NewThrottleRepo(), clock)
}

// unbounded lifts the fixture's write budget, for a test whose set-up
// sends more messages in a minute than the budget.
func (f *fixture) unbounded() {
	f.svc = messages.NewService(f.repo, f.couples, f.notes, f.bus, limiter(f.clock),
		messages.Settings{Budget: core.WriteBudget{Kind: "messages", PerMinute: 1 << 30, PerDay: 1 << 30}}, f.clock, &coretest.SeqIDs{})
}

// send sends body as user; the clock moves on a millisecond so messages
// have distinct times.
func (f *fixture) send(t *testing.T, user, body string) messages.Message {
	t.Helper()
	m, err := f.svc.Send(context.Background(), user, body)
	if err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Millisecond)
	return m
}

// thread is what user lists now, bodies newest first.
func (f *fixture) thread(t *testing.T, user string) string {
	t.Helper()
	ms, next, err := f.svc.List(context.Background(), user, core.Page{})
	if err != nil || ms == nil || next != "" {
		t.Fatalf("list: %v %q %v", ms, next, err)
	}
	return bodies(ms)
}

func bodies(ms []messages.Message) string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Body
	}
	return strings.Join(out, ",")
}

func TestSendRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name, user, body string
		paired           bool
		want             string // stored body; "" when refused
		msg              string
	}{
		{name: "unpaired: the solo thread", user: "u1", body: "note to self", want: "note to self"},
		{name: "paired: the partnership's thread", user: "u1", body: "hi love", paired: true, want: "hi love"},
		{name: "trimmed", user: "u1", body: "  hi \n", want: "hi"},
		{name: "4000 characters", user: "u1", body: strings.Repeat("é", 4000), want: strings.Repeat("é", 4000)},
		{name: "empty", user: "u1", body: "", msg: "body is required"},
		{name: "blank", user: "u1", body: " \t\n", msg: "body is required"},
		{name: "4001 characters", user: "u1", body: strings.Repeat("a", 4001), msg: "body must be at most 4000 characters"},
		{name: "no user", user: " ", body: "hi", msg: "userId is required"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			if tc.paired {
				f.couples.PairAs("p1", "u1", "u2")
			}
			m, err := f.svc.Send(ctx, tc.user, tc.body)
			if tc.msg != "" {
				coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
				if core.As(err).Message != tc.msg {
					t.Fatalf("message %q", core.As(err).Message)
				}
				if all, _, _ := f.repo.ByAuthor(ctx, tc.user, core.Page{}); len(all) != 0 {
					t.Fatalf("%d written", len(all))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			scope := "user:u1"
			if tc.paired {
				scope = "p1"
			}
			want := messages.Message{ID: "id-1", Scope: scope, AuthorID: "u1", Body: tc.want, CreatedAt: f.clock.Now()}
			if m != want {
				t.Fatalf("sent %+v", m)
			}
			stored, _, err := f.repo.List(ctx, scope, core.Page{})
			if err != nil || len(stored) != 1 || stored[0] != want {
				t.Fatalf("stored %+v %v", stored, err)
			}
		})
	}
}

func TestTheThreadBelongsToThePartnership(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.send(t, "ann", "ann alone")
	f.send(t, "bob", "bob alone")

	// paired: both read one thread, newest first; the solo threads are not listed
	f.couples.PairAs("p1", "ann", "bob")
	if got := f.thread(t, "ann"); got != "" {
		t.Fatalf("a new couple's thread is not empty: %s", got)
	}
	f.send(t, "ann", "hi bob")
	f.send(t, "bob", "hi ann")
	for _, u := range []string{"ann", "bob"} {
		if got := f.thread(t, u); got != "hi ann,hi bob" {
			t.Fatalf("%s reads %s", u, got)
		}
	}
	ms, _, _ := f.svc.List(context.Background(), "ann", core.Page{})
	if ms[0].AuthorID != "bob" || ms[1].AuthorID != "ann" {
		t.Fatalf("authors %+v", ms)
	}

	// unpaired: each is back in their own thread, the couple's is gone from view
	f.couples.Unpair("ann", "bob")
	if got := f.thread(t, "ann"); got != "ann alone" {
		t.Fatalf("ann after unpairing: %s", got)
	}

	// a new partner never sees the earlier couple's messages
	f.couples.PairAs("p2", "ann", "cid")
	if got := f.thread(t, "cid"); got != "" {
		t.Fatalf("the new partner reads %s", got)
	}
	f.send(t, "cid", "hello ann")
	if got := f.thread(t, "ann"); got != "hello ann" {
		t.Fatalf("ann with cid: %s", got)
	}
	if got := f.thread(t, "bob"); got != "bob alone" {
		t.Fatalf("bob alone again: %s", got)
	}

	// re-pairing the same two is a new partnership, with a new thread
	f.couples.Unpair("ann", "cid")
	f.couples.PairAs("p3", "ann", "bob")
	if got := f.thread(t, "bob"); got != "" {
		t.Fatalf("a renewed couple reads %s", got)
	}
}

func TestListPagesNewestFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	for _, b := range []string{"1", "2", "3", "4", "5"} {
		f.send(t, "u1", b)
	}
	var seen []messages.Message
	page := core.Page{Limit: 2}
	for {
		ms, next, err := f.svc.List(ctx, "u1", page)
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, ms...)
		if next == "" {
			break
		}
		page.Cursor = next
	}
	if bodies(seen) != "5,4,3,2,1" {
		t.Fatalf("pages %s", bodies(seen))
	}
	_, _, err := f.svc.List(ctx, "u1", core.Page{Limit: 2, Cursor: "forged"})
	coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
	_, _, err = f.svc.List(ctx, "", core.Page{})
	coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
}

func TestExportIsWhatTheUserWroteAndPurgeKeepsThePartners(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	f.unbounded()
	if got, err := f.svc.ExportUser(ctx, "ann"); err != nil || len(got.([]messages.ExportedMessage)) != 0 {
		t.Fatalf("empty export %v %v", got, err)
	}
	solo := f.send(t, "ann", "ann alone")
	f.couples.PairAs("p1", "ann", "bob")
	for range core.MaxPageLimit { // more than one page of export
		f.send(t, "ann", "x")
	}
	shared := f.send(t, "ann", "to bob")
	f.send(t, "bob", "to ann")
	if f.svc.Section() != "messages" {
		t.Fatal(f.svc.Section())
	}
	got, err := f.svc.ExportUser(ctx, "ann")
	if err != nil {
		t.Fatal(err)
	}
	all := got.([]messages.ExportedMessage)
	last, first := all[0], all[len(all)-1]
	if len(all) != core.MaxPageLimit+2 || last.Message != shared || last.PartnershipID != "p1" ||
		first.ID != solo.ID || first.PartnershipID != "" {
		t.Fatalf("export of %d: newest %+v, oldest %+v", len(all), last, first)
	}

	// ann deletes her account: what she wrote goes, bob's messages stay his
	if err := f.svc.PurgeUser(ctx, "ann"); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.PurgeUser(ctx, "ann"); err != nil {
		t.Fatal(err)
	}
	if got := f.thread(t, "bob"); got != "to ann" {
		t.Fatalf("bob's thread %s", got)
	}
	f.couples.Unpair("ann", "bob")
	if got := f.thread(t, "ann"); got != "" {
		t.Fatalf("ann's solo thread %s", got)
	}
	if got, _ := f.svc.ExportUser(ctx, "bob"); len(got.([]messages.ExportedMessage)) != 1 {
		t.Fatalf("bob's export %v", got)
	}
}

// The interaction below is the point of its test, so it uses gomock.

func TestAFailedPartnershipLookupWritesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ctrl := gomock.NewController(t)
	repo, couples := NewMockRepository(ctrl), NewMockPartnerships(ctrl) // the repository must not be called
	bus := &coretest.Events{}
	clock := coretest.NewClock(time.Time{})
	svc := messages.NewService(repo, couples, NewMockNotifier(ctrl), bus, limiter(clock), messages.Settings{}, clock, &coretest.SeqIDs{})
	broken := errors.New("database on fire")
	couples.EXPECT().PartnershipOf(gomock.Any(), "ann").Return("", "", false, core.Internal(broken)).Times(2)
	if _, err := svc.Send(ctx, "ann", "hi"); !errors.Is(err, broken) {
		t.Fatalf("send: %v", err)
	}
	if _, _, err := svc.List(ctx, "ann", core.Page{}); !errors.Is(err, broken) {
		t.Fatalf("list: %v", err)
	}
	// an invalid body is refused before the partnership is even asked
	_, err := svc.Send(ctx, "ann", " ")
	coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
	bus.WantLive(t) // nothing written, nothing announced
}

// Latest is List's first message of the caller's current thread: none
// while it is empty, the couple's newest while paired, the solo thread's
// after an unpairing; a request with a read memo asks the store once.
func TestLatestIsTheCurrentThreadsNewest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	latest := func(user string) string {
		t.Helper()
		m, ok, err := f.svc.Latest(ctx, user)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return "none"
		}
		return m.Body + " by " + m.AuthorID
	}
	steps := []struct {
		name string
		do   func()
		user string
		want string
	}{
		{"an empty thread", func() {}, "ann", "none"},
		{"the solo thread", func() { f.send(t, "ann", "note to self") }, "ann", "note to self by ann"},
		{"a new couple's thread is empty", func() { f.couples.PairAs("p1", "ann", "bob") }, "ann", "none"},
		{"the partner's message, for both", func() { f.send(t, "bob", "hi ann") }, "ann", "hi ann by bob"},
		{"the newest wins", func() { f.send(t, "ann", "hi bob") }, "bob", "hi bob by ann"},
		{"after unpairing, one's own thread again", func() { f.couples.Unpair("ann", "bob") }, "bob", "none"},
		{"the ex keeps their own solo thread", func() {}, "ann", "note to self by ann"},
	}
	for _, st := range steps {
		st.do()
		if got := latest(st.user); got != st.want {
			t.Fatalf("%s: %s reads %q, want %q", st.name, st.user, got, st.want)
		}
	}
	if _, _, err := f.svc.Latest(ctx, " "); !core.IsKind(err, core.KindInvalid) {
		t.Fatalf("a blank user: %v", err)
	}

	memo := core.WithReadMemo(ctx)
	first, _, _ := f.svc.Latest(memo, "ann")
	f.send(t, "ann", "after the first read")
	if again, _, _ := f.svc.Latest(memo, "ann"); again.ID != first.ID {
		t.Fatalf("the memo was not used: %+v then %+v", first, again)
	}
}

// TestSendSpendsTheWriteBudget: sends are bounded per user by the minute
// and by the day; a refused send stores and announces nothing, and an
// invalid one spends nothing. The issue: 300 messages of 4,000 characters
// in 0.3 s all succeeded.
func TestSendSpendsTheWriteBudget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	f.svc = messages.NewService(f.repo, f.couples, f.notes, f.bus, limiter(f.clock),
		messages.Settings{Budget: coretest.SmallBudget("messages")}, f.clock, &coretest.SeqIDs{})
	f.couples.PairAs("p1", "ann", "cat")
	for range 5 { // refused before the budget: spends none of it
		_, err := f.svc.Send(ctx, "ann", strings.Repeat("x", messages.MaxBody+1))
		coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
	}
	coretest.CheckWriteBudget(t, f.clock, func(user string, n int) error {
		_, err := f.svc.Send(ctx, user, fmt.Sprint("message ", n))
		return err
	}, func(user string) string { return fmt.Sprint(f.thread(t, user), len(f.bus.All())) })

	// The default: a burst of SendsPerMinute passes, the next is refused.
	f = newFixture(t)
	for i := range messages.SendsPerMinute {
		f.send(t, "ann", fmt.Sprint(i))
	}
	_, err := f.svc.Send(ctx, "ann", strings.Repeat("x", messages.MaxBody))
	coretest.WantErr(t, err, core.KindRateLimited, "rate_limited")
}

// A paired send's changes are read through the partnership, both partners'
// (the thread is the partnership's: neither reads it once it ended), so a
// store records none after an unpair; a solo send's through none.
func TestSendChangesAreReadThroughThePartnership(t *testing.T) {
	t.Parallel()
	paired, solo := newFixture(t), newFixture(t)
	paired.couples.Pair("ann", "bob")
	paired.send(t, "ann", "hi")
	solo.send(t, "ann", "hi")
	if got, want := paired.bus.Through(), []string{"ann message p-ann-bob", "bob message p-ann-bob"}; !slices.Equal(got, want) {
		t.Errorf("paired: %v, want %v", got, want)
	}
	if got, want := solo.bus.Through(), []string{"ann message -"}; !slices.Equal(got, want) {
		t.Errorf("solo: %v, want %v", got, want)
	}
}
