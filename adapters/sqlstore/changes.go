package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/jmoiron/sqlx"

	"tandem/core"
	"tandem/modules/changes"
)

var _ changes.Repository = (*ChangeRepo)(nil)

// ChangeRepo reads the change feed. The changes are written by inTx, in
// the transaction of the write they come with (core.WriteWithChanges):
// a reader's feed is one range of idx_changes_user (user_id, id).
type ChangeRepo struct{ db *DB }

func NewChangeRepo(db *DB) *ChangeRepo { return &ChangeRepo{db: db} }

// RecordChangesWith sets how changes are rendered and timed; call before
// the first write that carries changes (newLifecycleDB does).
func (d *DB) RecordChangesWith(r changes.Recording) { d.changes = r }

// renderChanges fills the data and time of the changes, after the write ran
// in the transaction (its record may be one the write made), and returns
// those the write made (not core.NoChange), in place.
func (d *DB) renderChanges(cs []core.Change) ([]core.Change, error) {
	if d.changes.Render == nil || d.changes.Clock == nil {
		return nil, core.Internal(fmt.Errorf("changes: the store has no renderer"))
	}
	now := d.changes.Clock.Now()
	kept := cs[:0]
	for _, c := range cs {
		if c = c.Resolved(); c.Dropped() {
			continue
		}
		c.At = now
		if c.Op == core.ChangePut && c.Data == nil {
			data, err := d.changes.Render(c.Record)
			if err != nil {
				return nil, core.Internal(fmt.Errorf("changes: render %s %s: %w", c.Kind, c.ID, err))
			}
			c.Data = data
		}
		kept = append(kept, c)
	}
	return kept, nil
}

// recording is fn that also inserts p's changes in fn's transaction: the
// write and its changes commit together, or neither.
func (d *DB) recording(ctx context.Context, p *core.PendingChanges, fn func(tx *sqlx.Tx) error) func(tx *sqlx.Tx) error {
	return func(tx *sqlx.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		cs, err := d.renderChanges(append([]core.Change(nil), p.Changes...)) // a re-run renders afresh
		if err != nil {
			return err
		}
		return d.insertChanges(ctx, tx, cs)
	}
}

// insertChanges inserts each change, one row per statement, and sets its
// Seq (a multi-row insert's ids are not all known on every dialect).
//
// The feed's read is "ids after the cursor", and on MySQL an AUTO_INCREMENT
// id is taken at the insert, not at the commit: two writes for one reader
// could commit out of id order, and a reader reading between the commits
// would move its cursor past the id still uncommitted and never see it.
// So each reader's change_heads row is bumped first, in the write's
// transaction (sorted by user, so two writes never wait on each other in a
// circle): its row lock serializes the writes with changes for one reader,
// each taking its ids after the one before it committed. Writes for other
// readers never wait; a couple's writes wait on each other only for the
// few inserts at the end of the transaction. (A hold-back window on the
// read was the other way: it delays every change by the window, and a
// window is a guess about how long a transaction may stay open.)
func (d *DB) insertChanges(ctx context.Context, e sqlx.ExecerContext, cs []core.Change) error {
	if err := d.lockHeads(ctx, e, cs); err != nil {
		return err
	}
	for i := range cs {
		c := &cs[i]
		var data any
		if c.Op == core.ChangePut {
			data = string(c.Data)
		}
		q, args, err := d.build(d.sb.Insert("changes").
			Columns("user_id", "kind", "record_id", "op", "data", "created_at").
			Values(c.UserID, c.Kind, c.ID, string(c.Op), data, c.At.UnixMilli()))
		if err != nil {
			return err
		}
		var res sql.Result
		if st := d.prepared(ctx, e, q); st != nil {
			res, err = st.ExecContext(ctx, args...)
		} else {
			res, err = e.ExecContext(ctx, q, args...)
		}
		if err != nil {
			return mapErr(err)
		}
		if c.Seq, err = res.LastInsertId(); err != nil {
			return mapErr(err)
		}
	}
	return nil
}

// lockHeads bumps the change_heads row of each reader of cs, in user order.
func (d *DB) lockHeads(ctx context.Context, e sqlx.ExecerContext, cs []core.Change) error {
	users := make([]string, 0, 2)
	for _, c := range cs {
		users = append(users, c.UserID)
	}
	slices.Sort(users)
	for _, u := range slices.Compact(users) {
		if err := d.exec(ctx, e, d.sb.Insert("change_heads").Columns("user_id", "writes").Values(u, 1).
			Suffix(d.upsert("user_id", "writes = writes + 1"))); err != nil {
			return err
		}
	}
	return nil
}

// Append records changes in a transaction of their own (those a write did
// not: core.ChangesCommitted).
func (r *ChangeRepo) Append(ctx context.Context, cs []core.Change) error {
	cs, err := r.db.renderChanges(append([]core.Change(nil), cs...))
	if err != nil {
		return err
	}
	return r.db.inTx(core.WithoutChanges(ctx), func(tx *sqlx.Tx) error {
		return r.db.insertChanges(ctx, tx, cs)
	})
}

type changeRow struct {
	ID        int64          `db:"id"`
	UserID    string         `db:"user_id"`
	Kind      string         `db:"kind"`
	RecordID  string         `db:"record_id"`
	Op        string         `db:"op"`
	Data      sql.NullString `db:"data"`
	CreatedAt int64          `db:"created_at"`
}

func (r changeRow) change() core.Change {
	c := core.Change{Seq: r.ID, UserID: r.UserID, Kind: r.Kind, ID: r.RecordID, Op: core.ChangeOp(r.Op),
		At: core.FromMillis(r.CreatedAt)}
	if r.Data.Valid && c.Op == core.ChangePut {
		c.Data = []byte(r.Data.String)
	}
	return c
}

// Since reads one range of idx_changes_user.
func (r *ChangeRepo) Since(ctx context.Context, userID string, seq int64, limit int) ([]core.Change, error) {
	var rows []changeRow
	err := r.db.selectInto(ctx, r.db, &rows, r.db.sb.
		Select("id", "user_id", "kind", "record_id", "op", "data", "created_at").From("changes").
		Where(sq.Eq{"user_id": userID}).Where(sq.Gt{"id": seq}).OrderBy("id").Limit(uint64(limit)))
	if err != nil {
		return nil, err
	}
	out := make([]core.Change, len(rows))
	for i, row := range rows {
		out[i] = row.change()
	}
	return out, nil
}

// Last reads the end of the user's range of idx_changes_user.
func (r *ChangeRepo) Last(ctx context.Context, userID string) (int64, error) {
	var last sql.NullInt64
	err := r.db.get(ctx, r.db, &last, r.db.sb.Select("MAX(id)").From("changes").Where(sq.Eq{"user_id": userID}))
	return last.Int64, err
}

// Purge deletes the changes created before before, in bounded batches
// through idx_changes_created.
func (r *ChangeRepo) Purge(ctx context.Context, before time.Time) (int, error) {
	return r.db.purgeInBatches(ctx, "changes", []string{"id"}, sq.Lt{"created_at": before.UnixMilli()})
}

// DeleteUser deletes the user's range of idx_changes_user and feed head.
func (r *ChangeRepo) DeleteUser(ctx context.Context, userID string) error {
	return r.db.inTx(core.WithoutChanges(ctx), func(tx *sqlx.Tx) error {
		if err := r.db.exec(ctx, tx, r.db.sb.Delete("changes").Where(sq.Eq{"user_id": userID})); err != nil {
			return err
		}
		return r.db.exec(ctx, tx, r.db.sb.Delete("change_heads").Where(sq.Eq{"user_id": userID}))
	})
}
