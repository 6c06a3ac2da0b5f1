package sqlstore

import (
	"context"

	"github.com/jmoiron/sqlx"
)

// lockOwner takes the user's row of table (user_id as its key; memory_owners,
// image_owners), inserting it the first time, and holds it until tx ends.
// Writes that check a per-user limit take it first, so on MySQL they run one
// after another per user: the count or sum read after it, the first plain
// read of the transaction, sees every write committed before (InnoDB takes
// the read view at that first read), and no other checked write can commit
// until this one ends. SQLite transactions are IMMEDIATE and serialized
// already; the same statement keeps one code path.
func lockOwner(ctx context.Context, d *DB, tx *sqlx.Tx, table, userID string) error {
	return d.exec(ctx, tx, d.sb.Insert(table).Columns("user_id").Values(userID).
		Suffix(d.upsert("user_id", "user_id = user_id")))
}
