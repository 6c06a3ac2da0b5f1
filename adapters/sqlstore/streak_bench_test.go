package sqlstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"tandem/adapters/sqlstore"
	"tandem/adapters/sqlstore/sqltest"
)

// BenchmarkAnsweredByBoth measures the read behind a couple's question
// streak (every home call and daily-question view) for a couple that
// answered every day for 1 month, 1 year and 3 years: the streak is derived
// from every date both partners answered, so the read grows by one row a
// day of the couple's history.
func BenchmarkAnsweredByBoth(b *testing.B) {
	for _, d := range sqltest.Dialects(b) {
		for _, days := range []int{30, 365, 3 * 365} {
			b.Run(fmt.Sprintf("%s/days=%d", d, days), func(b *testing.B) {
				db := sqltest.Open(b, d)
				seedAnsweredDays(b, db, "p1", days)
				repo := sqlstore.NewQuestionRepo(db)
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					got, err := repo.AnsweredByBoth(ctx, "p1")
					if err != nil || len(got) != days {
						b.Fatalf("%d days, %v", len(got), err)
					}
				}
			})
		}
	}
}

// seedAnsweredDays writes a daily question a day for days days, each
// answered by both partners, straight into the tables.
func seedAnsweredDays(b *testing.B, db *sqlstore.DB, partnership string, days int) {
	b.Helper()
	tx, err := db.Beginx()
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	daily := tx.Rebind(`INSERT INTO question_dailies (id, partnership_id, day, question_id, body, category, created_at) VALUES (?, ?, ?, 'q', 'b', 'c', 0)`)
	answer := tx.Rebind(`INSERT INTO question_messages (id, daily_id, user_id, kind, created_at) VALUES (?, ?, ?, 'answer', 0)`)
	first := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range days {
		id := fmt.Sprintf("d%d", i)
		if _, err := tx.Exec(daily, id, partnership, first.AddDate(0, 0, i).Format(time.DateOnly)); err != nil {
			b.Fatal(err)
		}
		for _, u := range []string{"ua", "ub"} {
			if _, err := tx.Exec(answer, id+u, id, u); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}
