// This file holds the tests of reading memories: a get of one's own, the
// list newest first in pages, the date range and the count per date.

package memories_test

import (
	"context"
	"slices"
	"testing"

	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/memories"
)

func TestGetOnlyOwnMemories(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	f.partners.Pair("me", "partner")
	mine := f.create(t, "me", "mine", "2025-06-01")
	theirs := f.create(t, "partner", "theirs", "2025-06-01")
	cases := []struct {
		name, user, id string
		kind           core.Kind
		code           string // "" when readable
	}{
		{name: "my own", user: "me", id: mine.ID},
		{name: "my partner's", user: "me", id: theirs.ID, kind: core.KindNotFound, code: "not_found"},
		{name: "no such memory", user: "me", id: "ghost", kind: core.KindNotFound, code: "not_found"},
		{name: "no memory id", user: "me", id: " ", kind: core.KindInvalid, code: "invalid_request"},
		{name: "no user id", user: "", id: mine.ID, kind: core.KindInvalid, code: "invalid_request"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := f.svc.Get(ctx, tc.user, tc.id)
			if tc.code != "" {
				coretest.WantErr(t, err, tc.kind, tc.code)
				return
			}
			if err != nil || m.ID != tc.id || m.Title != "mine" {
				t.Fatalf("%+v %v", m, err)
			}
		})
	}
	_, err := f.svc.Get(ctx, "me", theirs.ID)
	if core.As(err).Message != "memory not found" {
		t.Fatalf("message %q", core.As(err).Message)
	}
}

func TestListIsOwnMemoriesNewestFirstInPages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	ms, next, err := f.svc.List(ctx, "u1", core.Page{})
	if err != nil || ms == nil || len(ms) != 0 || next != "" {
		t.Fatalf("empty: %v %q %v", ms, next, err)
	}
	f.create(t, "u1", "c", "2025-03-01")
	f.create(t, "u1", "a", "2024-12-31")
	f.create(t, "u1", "d", "2025-03-01") // same day as c, created later: before it
	f.create(t, "u1", "b", "2025-01-15")
	f.partners.Pair("u1", "u2")
	f.create(t, "u2", "theirs", "2025-02-01")

	ms, next, err = f.svc.List(ctx, "u1", core.Page{})
	if err != nil || titles(ms) != "d,c,b,a" || next != "" {
		t.Fatalf("list %s %q %v", titles(ms), next, err)
	}
	var seen []memories.Memory
	page := core.Page{Limit: 3}
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
	if titles(seen) != "d,c,b,a" {
		t.Fatalf("pages %s", titles(seen))
	}
	_, _, err = f.svc.List(ctx, "u1", core.Page{Limit: 3, Cursor: "forged"})
	coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
}

func TestDateRangeRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	for _, m := range []struct{ title, day string }{
		{"before", "2025-02-28"}, {"first day", "2025-03-01"}, {"middle", "2025-03-15"}, {"middle later", "2025-03-15"},
		{"last day", "2025-03-31"}, {"after", "2025-04-01"},
	} {
		f.create(t, "me", m.title, m.day)
	}
	f.create(t, "other", "someone else's", "2025-03-15")
	cases := []struct {
		name, from, to string
		page           core.Page
		want           string // titles; "!" when refused
		wantNext       bool
	}{
		{name: "inclusive bounds, newest first", from: "2025-03-01", to: "2025-03-31", want: "last day,middle later,middle,first day"},
		{name: "one day", from: "2025-03-15", to: "2025-03-15", want: "middle later,middle"},
		{name: "nothing there", from: "2030-01-01", to: "2030-12-31", want: ""},
		{name: "a long range", from: "1900-01-01", to: "9999-12-31", want: "after,last day,middle later,middle,first day,before"},
		{name: "paged", from: "2025-03-01", to: "2025-03-31", page: core.Page{Limit: 2}, want: "last day,middle later", wantNext: true},
		{name: "start after end", from: "2025-03-02", to: "2025-03-01", want: "!"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ms, next, err := f.svc.DateRange(ctx, "me", date(t, tc.from), date(t, tc.to), tc.page)
			if tc.want == "!" {
				coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
				if core.As(err).Message != "startDate must not be after endDate" {
					t.Fatalf("message %q", core.As(err).Message)
				}
				return
			}
			if err != nil || ms == nil || titles(ms) != tc.want || (next != "") != tc.wantNext {
				t.Fatalf("%s %q %v", titles(ms), next, err)
			}
			if next != "" {
				rest, last, err := f.svc.DateRange(ctx, "me", date(t, tc.from), date(t, tc.to), core.Page{Limit: 2, Cursor: next})
				if err != nil || titles(rest) != "middle,first day" || last != "" {
					t.Fatalf("second page %s %q %v", titles(rest), last, err)
				}
			}
		})
	}
}

func TestCountIsPerDate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	f.create(t, "me", "a", "2025-03-01")
	f.create(t, "me", "b", "2025-03-01")
	f.create(t, "me", "c", "2025-03-02")
	f.create(t, "other", "d", "2025-03-01")
	for day, want := range map[string]int{"2025-03-01": 2, "2025-03-02": 1, "2025-03-03": 0} {
		if n, err := f.svc.Count(ctx, "me", date(t, day)); err != nil || n != want {
			t.Fatalf("%s: %d %v", day, n, err)
		}
	}
	_, err := f.svc.Count(ctx, "", date(t, "2025-03-01"))
	coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
}

// TestImageAddressesMoveWithThePublicURL: a memory keeps its images'
// keys, so the same records read by a service under another
// TANDEM_PUBLIC_URL (a restore on another host) name that host, on every
// read (get, list, date range, update and its live event, export). An
// address kept from before keys that names no uploaded file stays as it is.
func TestImageAddressesMoveWithThePublicURL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	m, err := f.svc.Create(ctx, "u1", memories.Draft{Title: "Trip", Date: "2025-06-01", Images: []string{img("u/u1/a.jpg"), img("u/u1/b.png")}})
	if err != nil {
		t.Fatal(err)
	}
	kept := m
	kept.ID, kept.Images = "kept", []string{"https://old.example/files/not-a-key.gif"}
	if err := f.repo.Create(ctx, kept, nil); err != nil {
		t.Fatal(err)
	}
	moved := memories.Settings{PublicURL: "https://new.example"}
	f.svc = memories.NewService(f.repo, f.partners, f.notes, &maxMemories{}, moved, f.bus, limiter(f.clock), f.clock, &coretest.SeqIDs{})
	want := []string{"https://new.example/files/u/u1/a.jpg", "https://new.example/files/u/u1/b.png"}
	check := func(what string, got memories.Memory) {
		t.Helper()
		if w := map[string][]string{m.ID: want, "kept": kept.Images}[got.ID]; !slices.Equal(got.Images, w) {
			t.Fatalf("%s: %s has %q, want %q", what, got.ID, got.Images, w)
		}
	}
	got, err := f.svc.Get(ctx, "u1", m.ID)
	if err != nil {
		t.Fatal(err)
	}
	check("get", got)
	list, _, err := f.svc.List(ctx, "u1", core.Page{})
	if err != nil || len(list) != 2 {
		t.Fatalf("list %+v %v", list, err)
	}
	for _, x := range list {
		check("list", x)
	}
	span, _, err := f.svc.DateRange(ctx, "u1", date(t, "2025-06-01"), date(t, "2025-06-01"), core.Page{})
	if err != nil || len(span) != 2 {
		t.Fatalf("date range %+v %v", span, err)
	}
	check("date range", span[0])
	title := "Renamed"
	// An app sends the record back as it read it: the new addresses.
	updated, err := f.svc.Update(ctx, "u1", m.ID, memories.Patch{Title: &title, Images: &want})
	if err != nil {
		t.Fatal(err)
	}
	check("update", updated)
	live := f.bus.Live()
	check("the update's live event", live[len(live)-1].For["u1"].(memories.Memory))
	export, err := f.svc.ExportUser(ctx, "u1")
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range export.([]memories.Memory) {
		check("export", x)
	}
}
