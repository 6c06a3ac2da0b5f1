package sqlstore

import (
	"context"

	"github.com/jmoiron/sqlx"

	"tandem/core"
)

// SetObserver lets tests see every statement before it runs (EXPLAIN checks).
func SetObserver(d *DB, f func(query string, args []any)) { d.observe = f }

// SetPurgeBatches makes d's purges delete batch rows a statement, at most
// batches statements a run.
func SetPurgeBatches(d *DB, batch, batches int) { d.purge = purgeSizes{batch, batches} }

// InsertChangesIn inserts cs in tx as a write that carries them does
// (each reader's change_heads row bumped first).
func InsertChangesIn(ctx context.Context, d *DB, tx *sqlx.Tx, cs []core.Change) error {
	return d.insertChanges(ctx, tx, cs)
}
