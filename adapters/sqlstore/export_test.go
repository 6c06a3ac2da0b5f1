package sqlstore

// SetObserver lets tests see every statement before it runs (EXPLAIN checks).
func SetObserver(d *DB, f func(query string, args []any)) { d.observe = f }

// SetPurgeBatches makes d's purges delete batch rows a statement, at most
// batches statements a run.
func SetPurgeBatches(d *DB, batch, batches int) { d.purge = purgeSizes{batch, batches} }
