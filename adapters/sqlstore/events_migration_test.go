package sqlstore_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"tandem/adapters/sqlstore"
	"tandem/core"
	"tandem/modules/events"
)

// TestMigration00032KeepsEveryEvent: 00032 rebuilds SQLite's events table
// WITHOUT ROWID and trims its indexes (MySQL: drops idx_events_user_end).
// Events stored before it read back the same after it, and after its Down;
// a due reminder is still found; and the dropped index is gone.
func TestMigration00032KeepsEveryEvent(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		ctx := context.Background()
		db := newDB(t)
		p := gooseProvider(t, db)
		if _, err := p.DownTo(ctx, 31); err != nil {
			t.Fatal(err)
		}
		repo := sqlstore.NewEventRepo(db)
		day, _ := core.ParseDate("2026-03-01")
		at := time.Date(2026, 2, 28, 9, 0, 0, 0, time.UTC)
		stored := []events.Event{
			{ID: "e1", UserID: "u1", Title: "Dinner", Description: "At home", StartDate: day, EndDate: day.AddDays(1),
				Location: "Home", Type: events.TypeDate, Importance: events.ImportanceHigh, Participants: []string{"u2"},
				CreatedAt: at, UpdatedAt: at, RemindAt: at.Add(time.Hour)},
			{ID: "e2", UserID: "u1", Title: "Trip", StartDate: day, EndDate: day, Type: events.TypeTraveling,
				Importance: events.ImportanceLow, Participants: []string{}, CreatedAt: at, UpdatedAt: at},
		}
		for _, e := range stored {
			if err := repo.Create(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
		readBack := func(when string) {
			t.Helper()
			for _, want := range stored {
				got, err := repo.Get(ctx, want.ID)
				if err != nil || !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: %s is %+v (%v), want %+v", when, want.ID, got, err, want)
				}
			}
			due, err := repo.DueReminders(ctx, at.Add(2*time.Hour), 10)
			if err != nil || len(due) != 1 || due[0].ID != "e1" {
				t.Fatalf("%s: due reminders %+v %v, want e1", when, due, err)
			}
		}
		if _, err := p.Up(ctx); err != nil {
			t.Fatal(err)
		}
		readBack("after 00032")
		if hasIndex(t, db, "idx_events_user_end") {
			t.Fatal("idx_events_user_end is still there")
		}
		if db.Dialect == sqlstore.SQLite && !strings.Contains(tableSQL(t, db, "events"), "WITHOUT ROWID") {
			t.Fatalf("events is not WITHOUT ROWID: %s", tableSQL(t, db, "events"))
		}
		if _, err := p.DownTo(ctx, 31); err != nil {
			t.Fatal(err)
		}
		readBack("after its Down")
		if !hasIndex(t, db, "idx_events_user_end") {
			t.Fatal("the Down did not restore idx_events_user_end")
		}
	})
}

func hasIndex(t *testing.T, db *sqlstore.DB, name string) bool {
	t.Helper()
	q := "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = ?"
	if db.Dialect == sqlstore.MySQL {
		q = "SELECT COUNT(*) FROM information_schema.statistics WHERE table_schema = DATABASE() AND index_name = ?"
	}
	var n int
	if err := db.Get(&n, q, name); err != nil {
		t.Fatal(err)
	}
	return n > 0
}

func tableSQL(t *testing.T, db *sqlstore.DB, name string) string {
	t.Helper()
	var s string
	if err := db.Get(&s, "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", name); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestMigration00040KeepsEventsInListOrder: on SQLite, 00040 keys events
// by (user_id, start_date, id). Events stored before it read back the same
// after it and after its Down, and list in the same order; a page of the
// list then reads the table's own key, not an index and a lookup per row;
// the id stays unique. MySQL's 00040 changes nothing.
func TestMigration00040KeepsEventsInListOrder(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		ctx := context.Background()
		db := newDB(t)
		p := gooseProvider(t, db)
		if _, err := p.DownTo(ctx, 37); err != nil {
			t.Fatal(err)
		}
		repo := sqlstore.NewEventRepo(db)
		at := time.Date(2026, 2, 28, 9, 0, 0, 0, time.UTC)
		var stored []events.Event
		for i, d := range []string{"2026-03-02", "2026-03-01", "2026-03-01", "2025-12-31"} {
			day, _ := core.ParseDate(d)
			e := events.Event{ID: fmt.Sprintf("e%d", 4-i), UserID: "u1", Title: "Dinner", StartDate: day, EndDate: day,
				Type: events.TypeDate, Importance: events.ImportanceHigh, Participants: []string{}, CreatedAt: at, UpdatedAt: at}
			if i == 0 {
				e.RemindAt, e.Participants = at.Add(time.Hour), []string{"u2"}
			}
			stored = append(stored, e)
			if err := repo.Create(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
		if err := repo.Create(ctx, events.Event{ID: "other", UserID: "u0", Title: "x", StartDate: stored[0].StartDate,
			EndDate: stored[0].EndDate, Type: events.TypeDate, Importance: events.ImportanceLow, CreatedAt: at, UpdatedAt: at}); err != nil {
			t.Fatal(err)
		}
		readBack := func(when string) {
			t.Helper()
			for _, want := range stored {
				got, err := repo.Get(ctx, want.ID)
				if err != nil || !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: %s is %+v (%v), want %+v", when, want.ID, got, err, want)
				}
			}
			page, _, err := repo.List(ctx, "u1", core.Page{Limit: 10})
			var ids []string
			for _, e := range page {
				ids = append(ids, e.ID)
			}
			if err != nil || strings.Join(ids, " ") != "e1 e2 e3 e4" {
				t.Fatalf("%s: list %v, %v", when, ids, err)
			}
			due, err := repo.DueReminders(ctx, at.Add(2*time.Hour), 10)
			if err != nil || len(due) != 1 || due[0].ID != "e4" {
				t.Fatalf("%s: due reminders %+v %v, want e4", when, due, err)
			}
		}
		readBack("before 00040")
		if _, err := p.Up(ctx); err != nil {
			t.Fatal(err)
		}
		readBack("after 00040")
		if db.Dialect == sqlstore.SQLite {
			if s := tableSQL(t, db, "events"); !strings.Contains(s, "PRIMARY KEY (user_id, start_date, id)") {
				t.Fatalf("events is not in list order: %s", s)
			}
			var plan []string
			rows, err := db.Queryx("EXPLAIN QUERY PLAN SELECT id, title FROM events WHERE user_id = ? ORDER BY start_date, id LIMIT 21", "u1")
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var id, parent, unused int
				var detail string
				if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
					t.Fatal(err)
				}
				plan = append(plan, detail)
			}
			rows.Close()
			if got := strings.Join(plan, "; "); got != "SEARCH events USING PRIMARY KEY (user_id=?)" {
				t.Fatalf("a page of the list: %s", got)
			}
			dup := stored[1]
			dup.UserID = "u9"
			if err := repo.Create(ctx, dup); !core.IsKind(err, core.KindConflict) {
				t.Fatalf("a second event e3 under another user: %v", err)
			}
		}
		if _, err := p.DownTo(ctx, 37); err != nil {
			t.Fatal(err)
		}
		readBack("after its Down")
	})
}
