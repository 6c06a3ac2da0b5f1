package sqlstore_test

import (
	"context"
	"testing"

	"tandem/adapters/sqlstore"
	"tandem/adapters/sqlstore/sqltest"
	"tandem/core"
)

// On MySQL a change's id is taken at its insert, not at the commit. A write
// with changes for a reader holds that reader's change_heads row until it
// commits, so another write with changes for the same reader takes its ids
// only after: a reader's feed never gets an id below one it has read. A
// write for another reader does not wait. (SQLite has one writer at a time:
// its ids are in commit order without the lock.)
func TestChangesOfOneReaderTakeTheirIdsInCommitOrder(t *testing.T) {
	t.Parallel()
	for _, d := range sqltest.Dialects(t) {
		if d != sqlstore.MySQL {
			continue
		}
		db := sqltest.Open(t, d)
		ctx := context.Background()
		change := func(reader, id string) []core.Change {
			return []core.Change{core.Delete(reader, core.ChangeMessage, id)}
		}
		first, err := db.BeginTxx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer first.Rollback() //nolint:errcheck // committed below
		if err := sqlstore.InsertChangesIn(ctx, db, first, change("ann", "first")); err != nil {
			t.Fatal(err)
		}
		second, err := db.BeginTxx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer second.Rollback() //nolint:errcheck // committed below
		if err := sqlstore.InsertChangesIn(ctx, db, second, change("bob", "bob's")); err != nil {
			t.Fatalf("another reader's change waited: %v", err)
		}
		var writes int64
		lock := "SELECT writes FROM change_heads WHERE user_id = 'ann' FOR UPDATE NOWAIT"
		if err := second.GetContext(ctx, &writes, lock); err == nil {
			t.Fatal("ann's head is free while a write with ann's change is open: a later write could take a higher id and commit first")
		}
		if err := first.Commit(); err != nil {
			t.Fatal(err)
		}
		if err := second.GetContext(ctx, &writes, lock); err != nil || writes != 1 {
			t.Fatalf("after the commit: %d %v", writes, err)
		}
		if err := sqlstore.InsertChangesIn(ctx, db, second, change("ann", "later")); err != nil {
			t.Fatal(err)
		}
		if err := second.Commit(); err != nil {
			t.Fatal(err)
		}
		feed, err := sqlstore.NewChangeRepo(db).Since(ctx, "ann", 0, 10)
		if err != nil || len(feed) != 2 || feed[0].ID != "first" || feed[1].ID != "later" {
			t.Fatalf("ann's feed %+v %v", feed, err)
		}
	}
}
