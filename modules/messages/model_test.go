package messages_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/messages"
)

func wantInvalid(t *testing.T, what string, err error, msg string) {
	t.Helper()
	if e := core.As(err); err == nil || e.Kind != core.KindInvalid || e.Code != "invalid_request" || e.Message != msg {
		t.Fatalf("%s: want invalid_request %q, got %v", what, msg, err)
	}
}

func TestNormalizeBody(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, want string
		msg            string // "" when accepted
	}{
		{name: "plain", in: "hello", want: "hello"},
		{name: "trimmed", in: "  hi there \n", want: "hi there"},
		{name: "inner lines kept", in: "line one\n\nline two", want: "line one\n\nline two"},
		{name: "4000 multibyte characters", in: strings.Repeat("💬", 4000), want: strings.Repeat("💬", 4000)},
		{name: "4000 after trimming", in: " " + strings.Repeat("a", 4000) + " ", want: strings.Repeat("a", 4000)},
		{name: "empty", in: "", msg: "body is required"},
		{name: "blank", in: " \n\t ", msg: "body is required"},
		{name: "4001 characters", in: strings.Repeat("a", 4001), msg: "body must be at most 4000 characters"},
	}
	for _, tc := range cases {
		got, err := messages.NormalizeBody(tc.in)
		if tc.msg != "" {
			wantInvalid(t, tc.name, err, tc.msg)
			continue
		}
		if err != nil || got != tc.want {
			t.Fatalf("%s: %q %v", tc.name, got, err)
		}
	}
}

func TestScopeIsThePartnershipElseTheSoloThread(t *testing.T) {
	t.Parallel()
	if got := messages.ScopeOf("u1", "p1"); got != "p1" {
		t.Fatal(got)
	}
	if got := messages.ScopeOf("u1", ""); got != "user:u1" || got != messages.SoloScope("u1") {
		t.Fatal(got)
	}
}

func TestCursorRoundTripAndForgeries(t *testing.T) {
	t.Parallel()
	m := messages.Message{ID: "m1", CreatedAt: time.UnixMilli(1718452800123)}
	c, err := messages.ParseCursor(messages.CursorAfter(m).String())
	if err != nil || c != (messages.Cursor{CreatedAt: 1718452800123, ID: "m1"}) {
		t.Fatalf("%+v %v", c, err)
	}
	for _, forged := range []string{"x", core.EncodeCursor("1"), core.EncodeCursor("soon", "m"), core.EncodeCursor("1", ""),
		core.EncodeCursor("1", "m", "extra")} {
		_, err := messages.ParseCursor(forged)
		wantInvalid(t, forged, err, "cursor is not one this server handed out")
	}
}

func TestListOrderIsNewestFirst(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	ms := []messages.Message{{ID: "a", CreatedAt: at}, {ID: "b", CreatedAt: at.Add(time.Millisecond)},
		{ID: "c", CreatedAt: at}, {ID: "d", CreatedAt: at.Add(-time.Hour)}}
	slices.SortFunc(ms, messages.ListOrder)
	var ids []string
	for _, m := range ms {
		ids = append(ids, m.ID)
	}
	if strings.Join(ids, "") != "bcad" {
		t.Fatalf("order %v", ids)
	}
	c := messages.CursorAfter(ms[1]) // after c
	if c.After(ms[0]) || c.After(ms[1]) || !c.After(ms[2]) || !c.After(ms[3]) {
		t.Fatal("After disagrees with ListOrder")
	}
}
