// This file holds the tests of the live announcement of a sent message: to
// the thread's readers, and a message kept and answered whatever its
// announce meets (a failed lookup, a store that hangs after the commit).

package messages_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"go.uber.org/mock/gomock"

	"tandem/adapters/memory"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/messages"
)

// TestSendIsAnnouncedToTheThreadsReaders: a sent message is a message.sent
// live event for exactly the users whose list shows it at that moment, and
// a messageSent activity for the partner. Never for a stranger, an
// ex-partner, or anyone when the couple unpaired while it was being written.
func TestSendIsAnnouncedToTheThreadsReaders(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		setup   func(f *fixture)
		during  func(f *fixture) // after the write, before the announcement
		sender  string
		readers []string // who hears of it; nobody else
		notes   []string
	}{
		{name: "paired: both partners (the sender's other devices too)", sender: "ann",
			setup:   func(f *fixture) { f.couples.PairAs("p1", "ann", "bob") },
			readers: []string{"ann", "bob"}, notes: []string{"bob<-ann:messageSent"}},
		{name: "unpaired: the sender's solo thread, nobody else", sender: "ann",
			readers: []string{"ann"}},
		{name: "after unpairing: the ex-partner hears nothing", sender: "ann",
			setup: func(f *fixture) {
				f.couples.PairAs("p1", "ann", "bob")
				f.couples.Unpair("ann", "bob")
			},
			readers: []string{"ann"}},
		{name: "paired with someone new: the ex-partner hears nothing", sender: "ann",
			setup: func(f *fixture) {
				f.couples.PairAs("p1", "ann", "bob")
				f.couples.Unpair("ann", "bob")
				f.couples.PairAs("p2", "ann", "cid")
			},
			readers: []string{"ann", "cid"}, notes: []string{"cid<-ann:messageSent"}},
		{name: "unpaired while it was written: listed to neither, announced to nobody", sender: "ann",
			setup:  func(f *fixture) { f.couples.PairAs("p1", "ann", "bob") },
			during: func(f *fixture) { f.couples.Unpair("ann", "bob") }},
		{name: "re-paired with another while it was written: nobody", sender: "ann",
			setup: func(f *fixture) { f.couples.PairAs("p1", "ann", "bob") },
			during: func(f *fixture) {
				f.couples.Unpair("ann", "bob")
				f.couples.PairAs("p2", "ann", "cid")
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			f := newFixture(t)
			f.couples.PairAs("p9", "eve", "mal") // strangers, paired among themselves
			if tc.setup != nil {
				tc.setup(f)
			}
			svc := f.svc
			if tc.during != nil {
				svc = messages.NewService(hookedRepo{f.repo, func() { tc.during(f) }}, f.couples, f.notes, f.bus,
					limiter(f.clock), messages.Settings{}, f.clock, &coretest.SeqIDs{})
			}
			m, err := svc.Send(ctx, tc.sender, "hi")
			if err != nil {
				t.Fatal(err)
			}
			var want []core.Live
			if len(tc.readers) > 0 {
				l := core.Live{Type: "message.sent", For: map[string]any{}}
				for _, r := range tc.readers {
					l.For[r] = m
					// the record is what the reader's own list shows
					if ms, _, err := f.svc.List(ctx, r, core.Page{}); err != nil || len(ms) == 0 || ms[0] != m {
						t.Fatalf("%s lists %+v %v, announced %+v", r, ms, err, m)
					}
				}
				want = append(want, l)
			}
			f.bus.WantLive(t, want...)
			if got := f.notes.Take(); fmt.Sprint(got) != fmt.Sprint(tc.notes) {
				t.Fatalf("notes %q, want %q", got, tc.notes)
			}
		})
	}
}

// A partnership lookup that fails after the message was stored announces
// nothing and notifies nobody, and the send still succeeds.
func TestAFailedLookupAfterTheWriteKeepsTheMessage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ctrl := gomock.NewController(t)
	couples, notifier := NewMockPartnerships(ctrl), NewMockNotifier(ctrl) // the notifier must not be called
	repo, bus := memory.NewMessageRepo(), &coretest.Events{}
	clock := coretest.NewClock(time.Time{})
	svc := messages.NewService(repo, couples, notifier, bus, limiter(clock), messages.Settings{}, clock, &coretest.SeqIDs{})
	gomock.InOrder(
		couples.EXPECT().PartnershipOf(gomock.Any(), "ann").Return("p1", "bob", true, nil),
		couples.EXPECT().PartnershipOf(gomock.Any(), "ann").Return("", "", false, core.Internal(errors.New("gone"))),
	)
	if _, err := svc.Send(ctx, "ann", "hi"); err != nil {
		t.Fatal(err)
	}
	if ms, _, _ := repo.List(ctx, "p1", core.Page{}); len(ms) != 1 {
		t.Fatalf("stored %+v", ms)
	}
	bus.WantLive(t)
}

// hookedRepo runs after once a message is stored.
type hookedRepo struct {
	messages.Repository
	after func()
}

func (r hookedRepo) Add(ctx context.Context, m messages.Message) error {
	if err := r.Repository.Add(ctx, m); err != nil {
		return err
	}
	r.after()
	return nil
}

// hungAfterWrite is a partnership lookup that answers until the message is
// written, then hangs until its context ends: the store hung after the
// commit.
type hungAfterWrite struct {
	*coretest.Couples
	repo     *memory.MessageRepo
	deadline time.Duration // the budget the hung lookup was given
}

func (h *hungAfterWrite) PartnershipOf(ctx context.Context, userID string) (string, string, bool, error) {
	if ms, _, _ := h.repo.ByAuthor(ctx, userID, core.Page{}); len(ms) == 0 {
		return h.Couples.PartnershipOf(ctx, userID)
	}
	d, ok := ctx.Deadline()
	if !ok {
		return "", "", false, errors.New("an after-commit read without a deadline would wait forever")
	}
	h.deadline = time.Until(d)
	<-ctx.Done()
	return "", "", false, ctx.Err()
}

// A message that committed is answered whatever its announce meets: the
// readers' lookup after the write runs under core.AfterCommitBudget, and
// a store that hangs then costs the answer that budget, not the breaker's
// seconds; the announce is skipped.
func TestASentMessageIsAnsweredWhenTheStoreHangsAfterTheCommit(t *testing.T) {
	f := newFixture(t)
	f.couples.PairAs("p1", "ann", "bob")
	hung := &hungAfterWrite{Couples: f.couples, repo: f.repo}
	svc := messages.NewService(f.repo, hung, f.notes, f.bus, limiter(f.clock), messages.Settings{}, f.clock, &coretest.SeqIDs{})
	m, err := svc.Send(context.Background(), "ann", "hello")
	if err != nil || m.Body != "hello" {
		t.Fatalf("%+v %v", m, err)
	}
	if hung.deadline <= 0 || hung.deadline > core.AfterCommitBudget {
		t.Fatalf("the lookup after the commit had %v, want at most %v", hung.deadline, core.AfterCommitBudget)
	}
	if len(f.bus.Live()) != 0 {
		t.Fatalf("announced %v without its readers", f.bus.Live())
	}
	if got := f.bus.Changes(); len(got) != 2 || !slices.Contains(got, "ann message id-1 put") || !slices.Contains(got, "bob message id-1 put") {
		t.Fatalf("the feed's changes, recorded with the write: %v", got)
	}
	if got := f.thread(t, "bob"); got != "hello" {
		t.Fatalf("the message did not stand: %q", got)
	}
}
