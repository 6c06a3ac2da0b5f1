package sqlstore_test

import (
	"context"
	"testing"
	"time"

	"tandem/adapters/sqlstore"
)

// TestMigration00028ChecksTheActiveRelationships: relationships active
// before the milestone pushes existed are due at once (the job's first
// pass computes their next morning with a milestone); ended ones get no
// check.
func TestMigration00028ChecksTheActiveRelationships(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		ctx := context.Background()
		db := newDB(t)
		p := gooseProvider(t, db)
		if _, err := p.DownTo(ctx, 27); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{
			"INSERT INTO relationships (id, partnership_id, member_a, member_b, start_date, end_date, is_active, created_at, updated_at) " +
				"VALUES ('r1', 'p1', 'ann', 'bob', '2024-02-29', NULL, 1, 5, 5)",
			"INSERT INTO relationships (id, partnership_id, member_a, member_b, start_date, end_date, is_active, created_at, updated_at) " +
				"VALUES ('r0', 'p0', 'cat', 'dan', '2020-01-01', '2021-01-01', 0, 1, 2)",
		} {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := p.Up(ctx); err != nil {
			t.Fatal(err)
		}
		due, err := sqlstore.NewRelationshipRepo(db).DueMilestones(ctx, time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC), 10)
		if err != nil || len(due) != 1 || due[0].Relationship.ID != "r1" || due[0].At.UnixMilli() != 0 ||
			due[0].Relationship.StartDate.String() != "2024-02-29" {
			t.Fatalf("checks %+v %v", due, err)
		}
	})
}
