// This file holds the tests of a day's conversation: answers, replies and
// reactions, the partner's answer locked until the reader answers, the
// history in pages, and the partner notified once.

package questions_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.uber.org/mock/gomock"

	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/questions"
)

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
