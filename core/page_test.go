package core_test

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"tandem/core"
)

func TestCutPage(t *testing.T) {
	t.Parallel()
	after := func(n int) string { return strconv.Itoa(n) }
	for _, tc := range []struct {
		name     string
		items    []int
		page     core.Page
		want     []int
		wantNext string
	}{
		{"fits", []int{1, 2}, core.Page{Limit: 2}, []int{1, 2}, ""},
		{"one more follows", []int{1, 2, 3}, core.Page{Limit: 2}, []int{1, 2}, "2"},
		{"unpaged list gets no cursor", make([]int, core.MaxListItems+1), core.Page{}, make([]int, core.MaxListItems), ""},
		{"empty", nil, core.Page{Limit: 5}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, next := core.CutPage(tc.items, tc.page, after)
			if !slices.Equal(got, tc.want) || next != tc.wantNext {
				t.Fatalf("got %v %q, want %v %q", got, next, tc.want, tc.wantNext)
			}
		})
	}
}

func TestEveryPageReadsToTheEnd(t *testing.T) {
	t.Parallel()
	all := make([]int, 2*core.MaxPageLimit+7)
	for i := range all {
		all[i] = i
	}
	calls := 0
	list := func(p core.Page) ([]int, string, error) {
		calls++
		start := 0
		if p.Cursor != "" {
			start, _ = strconv.Atoi(p.Cursor)
			start++
		}
		end := min(start+p.Size()+1, len(all))
		items, next := core.CutPage(all[start:end], p, strconv.Itoa)
		return items, next, nil
	}
	got, err := core.EveryPage(list, func(n int) string { return strconv.Itoa(n) })
	if err != nil || len(got) != len(all) || got[len(got)-1] != strconv.Itoa(len(all)-1) || calls != 3 {
		t.Fatalf("got %d items (last %q) in %d calls, err %v", len(got), got[len(got)-1], calls, err)
	}
	empty, err := core.EveryPage(func(core.Page) ([]int, string, error) { return nil, "", nil }, strconv.Itoa)
	if err != nil || empty == nil || len(empty) != 0 {
		t.Fatalf("an empty list exports as [], got %#v %v", empty, err)
	}
	boom := errors.New("boom")
	if _, err := core.EveryPage(func(core.Page) ([]int, string, error) { return nil, "", boom }, strconv.Itoa); !errors.Is(err, boom) {
		t.Fatalf("the list's error is returned, got %v", err)
	}
}

func TestTimeCursorRoundTripAndForgery(t *testing.T) {
	t.Parallel()
	c := core.TimeCursor{At: 1700000000123, ID: "0190-abc"}
	got, err := core.ParseTimeCursor(c.String())
	if err != nil || got != c {
		t.Fatalf("round trip: %+v %v", got, err)
	}
	for _, bad := range []string{"!!", core.EncodeCursor("x", "id"), core.EncodeCursor("12", ""), core.EncodeCursor("12")} {
		if _, err := core.ParseTimeCursor(bad); !core.IsKind(err, core.KindInvalid) {
			t.Fatalf("%q: want invalid, got %v", bad, err)
		}
	}
}

// FuzzCursor: a cursor decodes only when it is exactly what EncodeCursor
// makes of its parts (so it re-encodes to the same string), every part is
// printable UTF-8, and the parts of any cursor the server makes decode back.
func FuzzCursor(f *testing.F) {
	f.Add(core.EncodeCursor("1718000000000", "0190-abc"), uint8(1), "1718000000000", "0190-abc")
	f.Add(core.EncodeCursor("2025-06-15", "1718000000000", "id-7"), uint8(2), "2025-06-15", "id-7")
	f.Add(core.EncodeCursor("flag.key"), uint8(0), "k", "")
	f.Add("!!", uint8(3), "a\x1fb", "c")
	f.Fuzz(func(t *testing.T, s string, n uint8, a, b string) {
		want := int(n%4) + 1
		parts, err := core.DecodeCursor(s, want)
		if err == nil {
			if len(parts) != want {
				t.Fatalf("DecodeCursor(%q, %d) = %d parts", s, want, len(parts))
			}
			if again := core.EncodeCursor(parts...); again != s {
				t.Fatalf("DecodeCursor(%q) = %q, which encodes as %q", s, parts, again)
			}
			for _, p := range parts {
				if core.CheckText("cursor", p, false) != nil {
					t.Fatalf("DecodeCursor(%q) accepted the part %q", s, p)
				}
			}
		} else if e := core.As(err); e.Kind != core.KindInvalid {
			t.Fatalf("DecodeCursor(%q): %v, want a 400", s, err)
		}
		if strings.Contains(a+b, "\x1f") || core.CheckText("", a, false) != nil || core.CheckText("", b, false) != nil {
			return // never in a cursor the server makes
		}
		got, err := core.DecodeCursor(core.EncodeCursor(a, b), 2)
		if err != nil || got[0] != a || got[1] != b {
			t.Fatalf("EncodeCursor(%q, %q) decodes as %q, %v", a, b, got, err)
		}
	})
}

// FuzzTimeCursor: the cursor of the newest-first lists (notifications,
// feedback, messages) parses only in the form String makes, so a parsed
// cursor re-encodes to the same string.
func FuzzTimeCursor(f *testing.F) {
	f.Add(core.TimeCursor{At: 1700000000123, ID: "0190-abc"}.String(), int64(5), "id")
	f.Add(core.EncodeCursor("12"), int64(-1), "x")
	f.Add(core.EncodeCursor("x", "id"), int64(0), "")
	f.Add(core.EncodeCursor("9223372036854775808", "id"), int64(1<<62), "y")
	f.Fuzz(func(t *testing.T, s string, at int64, id string) {
		c, err := core.ParseTimeCursor(s)
		if err == nil {
			if c.String() != s || c.ID == "" {
				t.Fatalf("ParseTimeCursor(%q) = %+v, which encodes as %q", s, c, c.String())
			}
		} else if e := core.As(err); e.Kind != core.KindInvalid {
			t.Fatalf("ParseTimeCursor(%q): %v, want a 400", s, err)
		}
		if id == "" || strings.Contains(id, "\x1f") || core.CheckText("", id, false) != nil {
			return
		}
		in := core.TimeCursor{At: at, ID: id}
		if back, err := core.ParseTimeCursor(in.String()); err != nil || back != in {
			t.Fatalf("%+v encodes as %q, which parses as %+v, %v", in, in.String(), back, err)
		}
	})
}
