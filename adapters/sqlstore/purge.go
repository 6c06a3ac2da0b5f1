package sqlstore

import (
	"cmp"
	"context"

	sq "github.com/Masterminds/squirrel"
)

// The purges of the background jobs delete what has expired in batches
// (issue 36): each batch reads at most purgeBatch keys through the
// table's expiry index, then deletes those rows by their key, still
// expired, in a statement of its own. So no statement holds SQLite's one
// writer, or MySQL's locks, for the length of a whole table's backlog; a
// run stops after maxPurgeBatches and the next run goes on where it
// stopped (what is deleted is committed batch by batch).
const (
	purgeBatch      = 1000
	maxPurgeBatches = 100
)

// purgeSizes overrides the two above for one DB (tests); zero keeps them.
type purgeSizes struct{ batch, batches int }

func (d *DB) purgeSizes() (batch, batches int) {
	return cmp.Or(d.purge.batch, purgeBatch), cmp.Or(d.purge.batches, maxPurgeBatches)
}

// purgeInBatches deletes table's rows matching expired, key naming the
// table's primary key columns, and returns how many it deleted.
func (d *DB) purgeInBatches(ctx context.Context, table string, key []string, expired sq.Sqlizer) (int, error) {
	total := 0
	batch, batches := d.purgeSizes()
	for range batches {
		keys, err := d.expiredKeys(ctx, table, key, expired, batch)
		if err != nil || len(keys) == 0 {
			return total, err
		}
		match := make(sq.Or, len(keys))
		for i, k := range keys {
			eq := sq.Eq{}
			for j, col := range key {
				eq[col] = k[j]
			}
			match[i] = eq
		}
		if len(key) == 1 { // one IN list, not an OR of equalities
			vals := make([]any, len(keys))
			for i, k := range keys {
				vals[i] = k[0]
			}
			match = sq.Or{sq.Eq{key[0]: vals}}
		}
		n, err := d.execN(ctx, d, d.sb.Delete(table).Where(match).Where(expired))
		total += int(n)
		if err != nil || len(keys) < batch {
			return total, err
		}
	}
	return total, nil
}

// expiredKeys reads the keys of at most batch expired rows.
func (d *DB) expiredKeys(ctx context.Context, table string, key []string, expired sq.Sqlizer, batch int) ([][]any, error) {
	query, args, err := d.build(d.sb.Select(key...).From(table).Where(expired).Limit(uint64(batch)))
	if err != nil {
		return nil, err
	}
	rows, err := d.QueryxContext(ctx, query, args...)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out [][]any
	for rows.Next() {
		k, err := rows.SliceScan()
		if err != nil {
			return nil, mapErr(err)
		}
		for i, v := range k {
			if b, ok := v.([]byte); ok { // MySQL's text
				k[i] = string(b)
			}
		}
		out = append(out, k)
	}
	return out, mapErr(rows.Err())
}
