package feedback_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"tandem/adapters/memory"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/feedback"
	"tandem/modules/throttle"
)

// fixture is a Service on memory fakes, the real limiter over a memory
// counter store, a fixed clock (2025-06-15 12:00 UTC) and sequential ids.
type fixture struct {
	svc   *feedback.Service
	repo  *memory.FeedbackRepo
	clock *coretest.FixedClock
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{repo: memory.NewFeedbackRepo(), clock: coretest.NewClock(time.Time{})}
	f.svc = feedback.NewService(f.repo, throttle.NewLimiter(memory.NewThrottleRepo(), f.clock), f.clock, &coretest.SeqIDs{})
	return f
}

func (f *fixture) stored(t *testing.T) []feedback.Feedback {
	t.Helper()
	fs, _, err := f.repo.List(context.Background(), core.Page{})
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

func TestSubmitRules(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, want, errMsg string
	}{
		{name: "trimmed", in: "  Love the daily question!\n", want: "Love the daily question!"},
		{name: "5000 characters", in: strings.Repeat("é", 5000), want: strings.Repeat("é", 5000)},
		{name: "5001 characters", in: strings.Repeat("é", 5001), errMsg: "feedbackMessage must be at most 5000 characters"},
		{name: "missing", in: "", errMsg: "feedbackMessage is required"},
		{name: "blank", in: " \t\n ", errMsg: "feedbackMessage is required"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			got, err := f.svc.Submit(context.Background(), "u1", tc.in)
			if tc.errMsg != "" {
				coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
				if core.As(err).Message != tc.errMsg {
					t.Fatalf("message %q", core.As(err).Message)
				}
				if n := len(f.stored(t)); n != 0 {
					t.Fatalf("%d stored", n)
				}
				return
			}
			want := feedback.Feedback{ID: "id-1", UserID: "u1", Message: tc.want, CreatedAt: f.clock.Now()}
			if err != nil || got != want {
				t.Fatalf("got %+v, %v", got, err)
			}
			if s := f.stored(t); len(s) != 1 || s[0] != want {
				t.Fatalf("stored %+v", s)
			}
		})
	}
}

func TestSubmitIsRateLimitedPerUser(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	for i := range feedback.SubmitRate.Limit {
		if _, err := f.svc.Submit(ctx, "u1", fmt.Sprintf("note %d", i)); err != nil {
			t.Fatalf("message %d: %v", i+1, err)
		}
		_, _ = f.svc.Submit(ctx, "u1", " ") // refused input is not counted
	}
	_, err := f.svc.Submit(ctx, "u1", "one too many")
	coretest.WantErr(t, err, core.KindRateLimited, "rate_limited")
	if ra := core.As(err).RetryAfter; ra <= 0 || ra > time.Hour {
		t.Fatalf("retry after %v", ra)
	}
	if _, err := f.svc.Submit(ctx, "u2", "someone else"); err != nil {
		t.Fatalf("another user is limited too: %v", err)
	}
	if n := len(f.stored(t)); n != feedback.SubmitRate.Limit+1 {
		t.Fatalf("%d stored", n)
	}
	f.clock.Advance(time.Hour)
	if _, err := f.svc.Submit(ctx, "u1", "an hour later"); err != nil {
		t.Fatalf("after the window: %v", err)
	}
}

func TestListsAreNewestFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	mine, next, err := f.svc.List(ctx, "u1", core.Page{})
	if err != nil || mine == nil || len(mine) != 0 || next != "" {
		t.Fatalf("empty list %v %q %v", mine, next, err)
	}
	for i, u := range []string{"u1", "u2", "u1", "u1"} {
		if _, err := f.svc.Submit(ctx, u, fmt.Sprintf("m%d", i)); err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(time.Minute)
	}
	text := func(fs []feedback.Feedback) string {
		out := make([]string, len(fs))
		for i, x := range fs {
			out[i] = x.Message
		}
		return strings.Join(out, ",")
	}
	mine, next, err = f.svc.List(ctx, "u1", core.Page{Limit: 2})
	if err != nil || text(mine) != "m3,m2" || next == "" {
		t.Fatalf("u1 page 1 %s %q %v", text(mine), next, err)
	}
	rest, last, err := f.svc.List(ctx, "u1", core.Page{Limit: 2, Cursor: next})
	if err != nil || text(rest) != "m0" || last != "" {
		t.Fatalf("u1 page 2 %s %q %v", text(rest), last, err)
	}
	all, _, err := f.svc.ListAll(ctx, core.Page{})
	if err != nil || text(all) != "m3,m2,m1,m0" {
		t.Fatalf("all %s %v", text(all), err)
	}
	_, _, err = f.svc.ListAll(ctx, core.Page{Limit: 1, Cursor: "bogus!"})
	coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
}

func TestFeedbackExportAndPurge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	if f.svc.Section() != "feedback" {
		t.Fatal(f.svc.Section())
	}
	a, _ := f.svc.Submit(ctx, "u1", "first")
	f.clock.Advance(13 * time.Hour) // past midnight UTC: 16/06/2025
	b, _ := f.svc.Submit(ctx, "u1", "second")
	_, _ = f.svc.Submit(ctx, "u2", "theirs")
	got, err := f.svc.ExportUser(ctx, "u1")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.([]feedback.Feedback), []feedback.Feedback{b, a}) {
		t.Fatalf("export %+v", got)
	}
	if err := f.svc.PurgeUser(ctx, "u1"); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.PurgeUser(ctx, "u1"); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.svc.ExportUser(ctx, "u1"); fmt.Sprint(got) != "[]" {
		t.Fatalf("after purge %v", got)
	}
	if n := len(f.stored(t)); n != 1 {
		t.Fatalf("%d left, want the other user's one", n)
	}
}

func TestParseState(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want feedback.State
		ok   bool
	}{
		{in: "", want: feedback.StateAll, ok: true},
		{in: "all", want: feedback.StateAll, ok: true},
		{in: "open", want: feedback.StateOpen, ok: true},
		{in: "handled", want: feedback.StateHandled, ok: true},
		{in: "Open"},
		{in: "done"},
	}
	for _, tc := range cases {
		got, err := feedback.ParseState(tc.in)
		if tc.ok != (err == nil) || got != tc.want {
			t.Errorf("%q: got %q, %v", tc.in, got, err)
		}
	}
}

func TestMarkHandledKeepsTheFirstMark(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	a, _ := f.svc.Submit(ctx, "u1", "first")
	b, _ := f.svc.Submit(ctx, "u1", "second")
	got, err := f.svc.MarkHandled(ctx, a.ID, "boss@x.io")
	if err != nil || got.HandledBy != "boss@x.io" || !got.HandledAt.Equal(f.clock.Now()) {
		t.Fatalf("got %+v %v", got, err)
	}
	f.clock.Advance(time.Hour)
	again, err := f.svc.MarkHandled(ctx, a.ID, "other@x.io")
	if err != nil || again != got {
		t.Fatalf("again %+v %v", again, err)
	}
	_, err = f.svc.MarkHandled(ctx, "nope", "boss@x.io")
	coretest.WantErr(t, err, core.KindNotFound, "not_found")
	for state, want := range map[feedback.State]string{feedback.StateOpen: b.ID, feedback.StateHandled: a.ID} {
		fs, _, err := f.svc.ListByState(ctx, state, core.Page{})
		if err != nil || len(fs) != 1 || fs[0].ID != want {
			t.Fatalf("%s: %+v %v", state, fs, err)
		}
	}
	all, _, _ := f.svc.ListByState(ctx, feedback.StateAll, core.Page{})
	if len(all) != 2 {
		t.Fatalf("all %+v", all)
	}
}
