// This file holds the test that posts are announced live to both partners,
// each with their own view.

package questions_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/questions"
)

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
