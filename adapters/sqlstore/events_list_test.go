package sqlstore

import (
	"reflect"
	"testing"
	"time"

	sq "github.com/Masterminds/squirrel"

	"tandem/core"
	"tandem/modules/events"
)

// TestEventListQueryIsTheBuilders: the list's text comes from a memo after
// its first build, and its arguments are put in order by hand; both must
// stay what squirrel builds for every call, whichever call filled the memo.
func TestEventListQueryIsTheBuilders(t *testing.T) {
	r := NewEventRepo(&DB{sb: sq.StatementBuilder.PlaceholderFormat(sq.Question)})
	day := func(d int) core.Date { return core.Date{Year: 2025, Month: 1, Day: d} }
	cursor := func(d int, id string) string {
		return events.CursorAfter(events.Event{StartDate: day(d), ID: id}).String()
	}
	for _, tc := range []struct {
		user string
		page core.Page
	}{
		{"u1", core.Page{Limit: 20}},
		{"u2", core.Page{Limit: 20}},
		{"u1", core.Page{}},
		{"u1", core.Page{Limit: 500}},
		{"u1", core.Page{Limit: 20, Cursor: cursor(3, "ev-1")}},
		{"u2", core.Page{Limit: 20, Cursor: cursor(9, "ev-7")}},
		{"u3", core.Page{Limit: 1, Cursor: cursor(1, "a")}},
		{"u3", core.Page{Limit: 1}},
	} {
		var c events.Cursor
		if tc.page.Cursor != "" {
			var err error
			if c, err = events.ParseCursor(tc.page.Cursor); err != nil {
				t.Fatal(err)
			}
		}
		for range 2 { // the first call may fill the memo, the second reads it
			q, args, err := r.listQuery(tc.user, tc.page, c)
			if err != nil {
				t.Fatal(err)
			}
			shape := listShape{cursor: tc.page.Cursor != "", rows: uint64(tc.page.Size() + 1)}
			wq, wargs, err := r.listSelect(tc.user, shape, c).ToSql()
			if err != nil {
				t.Fatal(err)
			}
			if q != wq || !reflect.DeepEqual(args, wargs) {
				t.Fatalf("%s %+v:\n got %s %v\nwant %s %v", tc.user, tc.page, q, args, wq, wargs)
			}
		}
	}
}

// TestEventNextQueryIsTheBuilders: Next's text comes from a memo by the
// number of users, its arguments put in order by hand; both must stay what
// squirrel builds, whichever call filled the memo.
func TestEventNextQueryIsTheBuilders(t *testing.T) {
	r := NewEventRepo(&DB{sb: sq.StatementBuilder.PlaceholderFormat(sq.Question)})
	day := func(m time.Month, d int) core.Date { return core.Date{Year: 2025, Month: m, Day: d} }
	for _, tc := range []struct {
		users    []string
		from, to core.Date
	}{
		{[]string{"u1", "u2"}, day(3, 1), day(12, 31)},
		{[]string{"u3", "u4"}, day(6, 2), day(6, 2)},
		{[]string{"u1"}, day(3, 1), day(12, 31)},
		{[]string{"u5"}, day(1, 1), day(2, 1)},
		{[]string{"a", "b", "c"}, day(1, 1), day(2, 1)},
	} {
		for range 2 { // the first call may fill the memo, the second reads it
			q, args, err := r.nextQuery(tc.users, tc.from, tc.to)
			if err != nil {
				t.Fatal(err)
			}
			wq, wargs, err := r.nextSelect(tc.users, tc.from, tc.to).ToSql()
			if err != nil {
				t.Fatal(err)
			}
			if q != wq || !reflect.DeepEqual(args, wargs) {
				t.Fatalf("%v %s..%s:\n got %s %v\nwant %s %v", tc.users, tc.from, tc.to, q, args, wq, wargs)
			}
		}
	}
}

// TestEventInsertIsTheBuilders: Create's text, built once, is what squirrel
// builds for any event, a reminder's NULLs included.
func TestEventInsertIsTheBuilders(t *testing.T) {
	r := NewEventRepo(&DB{sb: sq.StatementBuilder.PlaceholderFormat(sq.Question)})
	first := true
	for _, e := range []events.Event{
		{ID: "e1", UserID: "u1", Title: "a", StartDate: core.Date{Year: 2025, Month: 1, Day: 1}},
		{ID: "e2", UserID: "u2", Title: "b", Notify: events.Notify{Minutes: 5, Set: true}, Participants: []string{"x"}},
	} {
		v, err := eventValues(e)
		if err != nil {
			t.Fatal(err)
		}
		q, err := r.insert.text(0, func() sq.Sqlizer { return r.insertBuilder(v) })
		if err != nil {
			t.Fatal(err)
		}
		want, wargs, err := r.insertBuilder(v).ToSql()
		if err != nil {
			t.Fatal(err)
		}
		if q != want || !reflect.DeepEqual(v, wargs) {
			t.Fatalf("first %v: got %s %v, want %s %v", first, q, v, want, wargs)
		}
		first = false
	}
}
