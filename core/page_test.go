package core_test

import (
	"errors"
	"slices"
	"strconv"
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
