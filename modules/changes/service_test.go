package changes_test

import (
	"context"
	"testing"
	"time"

	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/changes"
)

// feedRepo is the feed as a slice, in commit order: the rules of the
// service, without a store.
type feedRepo struct{ cs []core.Change }

func (r *feedRepo) Append(_ context.Context, cs []core.Change) error {
	for _, c := range cs {
		c.Seq, c.At = int64(len(r.cs)+1), t0 // the stores stamp the write's time
		r.cs = append(r.cs, c)
	}
	return nil
}

func (r *feedRepo) Since(_ context.Context, userID string, seq int64, limit int) ([]core.Change, error) {
	var out []core.Change
	for _, c := range r.cs {
		if c.UserID == userID && c.Seq > seq && len(out) < limit {
			out = append(out, c)
		}
	}
	return out, nil
}

func (r *feedRepo) Last(_ context.Context, userID string) (int64, error) {
	var last int64
	for _, c := range r.cs {
		if c.UserID == userID {
			last = c.Seq
		}
	}
	return last, nil
}

func (r *feedRepo) Purge(context.Context, time.Time) (int, error) { return 0, nil }
func (r *feedRepo) DeleteUser(context.Context, string) error      { return nil }

var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

func TestCursorsAreBoundToTheirUserAndTheRetention(t *testing.T) {
	clock := coretest.NewClock(t0)
	svc := changes.NewService(&feedRepo{}, changes.Settings{Retention: 48 * time.Hour}, clock)
	ann := changes.NewCursor("ann", 7, t0).String()
	cases := []struct {
		name   string
		user   string
		cursor string
		after  time.Duration
		want   core.Kind // 0: accepted
		code   string
	}{
		{"its own user, fresh", "ann", ann, 0, 0, ""},
		{"its own user, just inside the retention", "ann", ann, 48 * time.Hour, 0, ""},
		{"past the retention", "ann", ann, 48*time.Hour + time.Millisecond, core.KindGone, "cursor_expired"},
		{"another user's", "bob", ann, 0, core.KindGone, "cursor_expired"},
		{"not one the server made", "ann", "bm90IGEgY3Vyc29y", 0, core.KindInvalid, "invalid_request"},
		{"another version", "ann", core.EncodeCursor("c0", "7", "1", "abcdefabcdef"), 0, core.KindInvalid, "invalid_request"},
		{"a negative position", "ann", core.EncodeCursor("c1", "-1", "1", "abcdefabcdef"), 0, core.KindInvalid, "invalid_request"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clock.Set(t0.Add(tc.after))
			c, err := svc.Resume(tc.user, tc.cursor)
			if tc.want == 0 {
				if err != nil || c.Seq != 7 {
					t.Fatalf("Resume = %+v, %v; want position 7", c, err)
				}
				return
			}
			if e := core.As(err); err == nil || e.Kind != tc.want || e.Code != tc.code {
				t.Fatalf("Resume = %v, want %v %s", err, tc.want, tc.code)
			}
		})
	}
}

func TestTheFeedPagesInCommitOrderAndCollapsesARecord(t *testing.T) {
	ctx := context.Background()
	clock := coretest.NewClock(t0)
	repo := &feedRepo{}
	svc := changes.NewService(repo, changes.Settings{}, clock)

	first, err := svc.Since(ctx, "ann", "", 0)
	if err != nil || len(first.Changes) != 0 || first.HasMore || first.Cursor == "" {
		t.Fatalf("no since: %+v, %v; want no changes and the current cursor", first, err)
	}
	_ = repo.Append(ctx, []core.Change{
		core.Put("ann", core.ChangeMessage, "m1", nil),
		core.Put("bob", core.ChangeMessage, "m1", nil), // another reader's
		core.Put("ann", core.ChangeMemory, "x", nil),
		core.Delete("ann", core.ChangeMemory, "x"), // collapses the put of x
		core.Put("ann", core.ChangeMessage, "m2", nil),
	})

	page, err := svc.Since(ctx, "ann", first.Cursor, 3)
	if err != nil || !page.HasMore {
		t.Fatalf("page 1: %+v, %v; want more waiting", page, err)
	}
	if got := ops(page.Changes); got != "put message m1, delete memory x" {
		t.Fatalf("page 1 = %s", got)
	}
	rest, err := svc.Since(ctx, "ann", page.Cursor, 3)
	if err != nil || rest.HasMore || ops(rest.Changes) != "put message m2" {
		t.Fatalf("page 2 = %+v (%s), %v", rest, ops(rest.Changes), err)
	}
	again, err := svc.Since(ctx, "ann", rest.Cursor, 0)
	if err != nil || len(again.Changes) != 0 {
		t.Fatalf("caught up: %+v, %v; want nothing new", again, err)
	}
	for _, limit := range []int{-1, changes.MaxLimit + 1} {
		if _, err := svc.Since(ctx, "ann", "", limit); core.KindOf(err) != core.KindInvalid {
			t.Fatalf("limit %d: %v, want 400", limit, err)
		}
	}
}

func ops(cs []core.Change) string {
	s := ""
	for i, c := range cs {
		if i > 0 {
			s += ", "
		}
		s += string(c.Op) + " " + c.Kind + " " + c.ID
	}
	return s
}
