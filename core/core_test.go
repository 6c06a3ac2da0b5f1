package core_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"testing"
	"time"

	"tandem/core"
)

func TestAsClassifiesForeignErrorsAsInternal(t *testing.T) {
	t.Parallel()
	foreign := errors.New("disk on fire")
	e := core.As(fmt.Errorf("wrapped: %w", foreign))
	if e.Kind != core.KindInternal || e.Code != "internal_error" || e.Message != "internal error" {
		t.Fatalf("got %+v", e)
	}
	if !errors.Is(e, foreign) {
		t.Fatal("cause lost")
	}
	nf := core.NotFound("user_not_found", "core.userNotFound", "user not found")
	if got := core.As(fmt.Errorf("ctx: %w", nf)); got != nf {
		t.Fatalf("As did not find the wrapped core error: %v", got)
	}
	if !core.IsKind(nf, core.KindNotFound) || core.IsKind(foreign, core.KindNotFound) {
		t.Fatal("IsKind")
	}
}

func TestParseDate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		ok   bool
		want string
	}{
		{"2024-02-29", true, "2024-02-29"},
		{"2025-02-29", false, ""},
		{"2025-13-01", false, ""},
		{"2025-1-01", false, ""},
		{"2025-01-01T00:00:00Z", false, ""},
		{"", false, ""},
		{"2025-03-09", true, "2025-03-09"},
	}
	for _, tc := range cases {
		d, err := core.ParseDate(tc.in)
		if tc.ok != (err == nil) {
			t.Fatalf("%q: err %v", tc.in, err)
		}
		if tc.ok && d.String() != tc.want {
			t.Fatalf("%q: got %s", tc.in, d)
		}
		if !tc.ok && core.KindOf(err) != core.KindInvalid {
			t.Fatalf("%q: kind %v", tc.in, core.KindOf(err))
		}
	}
}

func TestDateArithmeticIgnoresDST(t *testing.T) {
	t.Parallel()
	a, _ := core.ParseDate("2025-03-01")
	b, _ := core.ParseDate("2025-04-01") // spans the US and EU spring-forward
	if got := a.DaysUntil(b); got != 31 {
		t.Fatalf("days = %d", got)
	}
	leap, _ := core.ParseDate("2024-02-28")
	if got := leap.AddDays(1).String(); got != "2024-02-29" {
		t.Fatalf("leap = %s", got)
	}
	ny, _ := time.LoadLocation("America/New_York")
	now := time.Date(2025, 1, 1, 3, 0, 0, 0, time.UTC) // still Dec 31 in New York
	if got := core.Today(now, ny).String(); got != "2024-12-31" {
		t.Fatalf("today = %s", got)
	}
}

func TestUUIDv7(t *testing.T) {
	t.Parallel()
	g := core.NewUUIDv7()
	re := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	prev := ""
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		id := g.New()
		if !re.MatchString(id) || seen[id] {
			t.Fatalf("bad or repeated id %q", id)
		}
		if id[:13] < prev {
			t.Fatalf("time prefix went backwards: %s < %s", id, prev)
		}
		prev = id[:13]
		seen[id] = true
	}
}

type ping struct{}

func (ping) EventName() string { return "Ping" }

func TestBusDeliversToEveryListenerDespiteFailures(t *testing.T) {
	t.Parallel()
	var got []string
	var reported []string
	bus := core.NewBus([]core.Listener{
		{Name: "a", Handle: func(context.Context, core.Event) error { got = append(got, "a"); return errors.New("boom") }},
		{Name: "b", Handle: func(context.Context, core.Event) error { panic("oops") }},
		{Name: "c", Handle: func(_ context.Context, e core.Event) error { got = append(got, "c:"+e.EventName()); return nil }},
	}, func(l string, _ core.Event, err error) { reported = append(reported, l+":"+err.Error()) })
	bus.Publish(context.Background(), ping{})
	if fmt.Sprint(got) != "[a c:Ping]" || fmt.Sprint(reported) != "[a:boom b:panic: oops]" {
		t.Fatalf("got %v reported %v", got, reported)
	}
}

func TestPageSize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ limit, want int }{{0, 1000}, {-5, 1000}, {10, 10}, {900, 500}} {
		if got := (core.Page{Limit: tc.limit}).Size(); got != tc.want {
			t.Fatalf("limit %d: %d", tc.limit, got)
		}
	}
}

func TestCursorRoundTripAndForgery(t *testing.T) {
	t.Parallel()
	c := core.EncodeCursor("1718000000000", "id-7")
	parts, err := core.DecodeCursor(c, 2)
	if err != nil || parts[0] != "1718000000000" || parts[1] != "id-7" {
		t.Fatalf("%v %v", parts, err)
	}
	for _, bad := range []string{"!!", core.EncodeCursor("only-one"), ""} {
		if _, err := core.DecodeCursor(bad, 2); core.KindOf(err) != core.KindInvalid {
			t.Fatalf("%q accepted", bad)
		}
	}
}

func TestVersions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		a, b string
		cmp  int
	}{
		{"1.2.3", "1.2.3", 0},
		{"1.2.3", "1.10.0", -1},
		{"2.0.0", "1.99.99", 1},
		{"v1.2", "1.2.0", 0},
		{"1.2.3+7", "1.2.3+12", -1},
		{"1.2.3+7", "1.2.3", 1},
	}
	for _, tc := range cases {
		a, err1 := core.ParseVersion(tc.a)
		b, err2 := core.ParseVersion(tc.b)
		if err1 != nil || err2 != nil || a.Compare(b) != tc.cmp {
			t.Fatalf("%s vs %s: %v %v %d", tc.a, tc.b, err1, err2, a.Compare(b))
		}
	}
	for _, bad := range []string{"", "1", "1.x.3", "1.2.3.4", "-1.2.3", "1.2.3+b"} {
		if _, err := core.ParseVersion(bad); core.KindOf(err) != core.KindInvalid {
			t.Fatalf("%q accepted", bad)
		}
	}
	if v, _ := core.ParseVersion("1.2.3+4"); v.String() != "1.2.3+4" {
		t.Fatal(v.String())
	}
}
