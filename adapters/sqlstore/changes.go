package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
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
// those the write made (not core.NoChange), in place. A record given to
// several readers as the same value (a message: both partners) is rendered
// once; one given to each as their own (a question: each partner's view)
// is rendered for each.
func (d *DB) renderChanges(cs []core.Change) ([]core.Change, error) {
	if d.changes.Render == nil || d.changes.Clock == nil {
		return nil, core.Internal(fmt.Errorf("changes: the store has no renderer"))
	}
	now := d.changes.Clock.Now()
	kept := cs[:0]
	var done map[[2]string]core.Change // the last put rendered, by kind and id
	for _, c := range cs {
		if c = c.Resolved(); c.Dropped() {
			continue
		}
		c.At = now
		if c.Op == core.ChangePut && c.Data == nil {
			key := [2]string{c.Kind, c.ID}
			if prev, ok := done[key]; ok && sameRecord(prev.Record, c.Record) {
				c.Data = prev.Data
			} else {
				data, err := d.changes.Render(c.Record)
				if err != nil {
					return nil, core.Internal(fmt.Errorf("changes: render %s %s: %w", c.Kind, c.ID, err))
				}
				c.Data = data
				if done == nil {
					done = make(map[[2]string]core.Change, 1)
				}
				done[key] = c
			}
		}
		kept = append(kept, c)
	}
	return kept, nil
}

// sameRecord says whether a and b are one value, so render the same (a
// renderer reads nothing but its record). It may say no of equal values
// (then both are rendered), never yes of different ones.
func sameRecord(a, b any) (same bool) {
	t := reflect.TypeOf(a)
	if t == nil || t != reflect.TypeOf(b) {
		return false
	}
	if !t.Comparable() {
		return reflect.DeepEqual(a, b)
	}
	defer func() {
		if recover() != nil { // an interface field holding a value == cannot compare
			same = reflect.DeepEqual(a, b)
		}
	}()
	return a == b
}

// recording is fn that also inserts p's changes in fn's transaction: the
// write and its changes commit together, or neither.
func (d *DB) recording(ctx context.Context, p *core.PendingChanges, fn func(tx *sqlx.Tx) error) func(tx *sqlx.Tx) error {
	return func(tx *sqlx.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		cs, err := d.throughLive(ctx, tx, append([]core.Change(nil), p.Changes...)) // a re-run renders afresh
		if err != nil {
			return err
		}
		if cs, err = d.renderChanges(cs); err != nil {
			return err
		}
		return d.insertChanges(ctx, tx, cs)
	}
}

// throughLive is cs without the changes read through a partnership
// (core.Change.Via) that no longer exists, in place: a write that looked
// up the partner before an unpair and commits after it gives the
// ex-partner nothing. One read of every partnership named, with a shared
// lock on MySQL: the unpair's end reads the row FOR UPDATE, so the two
// run one after the other. A write first is seen by the unpair's second
// enumeration, which records its delete (partners' reconcileEnd); one
// after finds the row gone. On SQLite the write's transaction holds the
// database's write lock, and a plain read is as good.
func (d *DB) throughLive(ctx context.Context, tx *sqlx.Tx, cs []core.Change) ([]core.Change, error) {
	var via []string
	for _, c := range cs {
		if c.Via != "" && !slices.Contains(via, c.Via) {
			via = append(via, c.Via)
		}
	}
	if len(via) == 0 {
		return cs, nil
	}
	live, err := d.livePartnerships(ctx, tx, via)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(cs, func(c core.Change) bool { return c.Via != "" && !slices.Contains(live, c.Via) }), nil
}

// livePartnerships are those of ids that exist, read with shareLock.
func (d *DB) livePartnerships(ctx context.Context, tx *sqlx.Tx, ids []string) ([]string, error) {
	build := func() sq.Sqlizer {
		return d.sb.Select("id").From("partnerships").Where(sq.Eq{"id": ids}).Suffix(d.shareLock())
	}
	var read sq.Sqlizer
	if len(ids) == 1 { // a write's usual one: its text kept (and prepared on SQLite)
		q, err := d.changeSQL.text("partnerships", build)
		if err != nil {
			return nil, err
		}
		read = built{q, []any{ids[0]}}
	} else {
		read = build()
	}
	var live []string
	err := d.selectInto(ctx, tx, &live, read)
	return live, err
}

// shareLock is the suffix of a read that holds its rows against a writer
// until the commit (MariaDB has no FOR SHARE); "" on SQLite, whose
// writers run one at a time.
func (d *DB) shareLock() string {
	if d.Dialect == MySQL {
		return "LOCK IN SHARE MODE"
	}
	return ""
}

// insertChanges inserts the changes, all readers' in one multi-row INSERT
// (changesPerInsert rows at most: a mark-all-read's may be many). It sets
// no Seq: nothing reads a change's position back from its write (the feed
// and the live stream read it from the table), so no dialect's way of
// handing out several ids to one statement is relied on. A statement's
// rows take increasing ids in their order, so one reader's changes of one
// write stay in the order given.
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
// two statements at the end of the transaction. (A hold-back window on the
// read was the other way: it delays every change by the window, and a
// window is a guess about how long a transaction may stay open.)
func (d *DB) insertChanges(ctx context.Context, e sqlx.ExecerContext, cs []core.Change) error {
	if len(cs) == 0 { // every change one the write did not make
		return nil
	}
	if err := d.lockHeads(ctx, e, cs); err != nil {
		return err
	}
	for rows := range slices.Chunk(cs, changesPerInsert) {
		args := make([]any, 0, len(rows)*len(changeCols))
		for _, c := range rows {
			var data any
			if c.Op == core.ChangePut {
				data = string(c.Data)
			}
			args = append(args, c.UserID, c.Kind, c.ID, string(c.Op), data, c.At.UnixMilli())
		}
		if err := d.insertRows(ctx, e, "changes", changeCols, "", args); err != nil {
			return err
		}
	}
	return nil
}

var (
	changeCols = []string{"user_id", "kind", "record_id", "op", "data", "created_at"}
	headCols   = []string{"user_id", "writes"}
)

// changesPerInsert bounds the rows of one INSERT of changes: 3,000
// placeholders, far below SQLite's 32,766 and MySQL's 65,535.
const changesPerInsert = 500

// preparedRows is the most rows of an INSERT whose text is kept (changeSQL)
// and prepared (stmtCache): a write's readers are one or two; the longer
// lists of a mark-all-read, each length its own text, would fill both.
const preparedRows = 4

// insertRows inserts the rows of args (cols' values, row after row) into
// table in one statement, with suffix.
func (d *DB) insertRows(ctx context.Context, e sqlx.ExecerContext, table string, cols []string, suffix string, args []any) error {
	n := len(args) / len(cols)
	text := func() sq.Sqlizer {
		ins, row := d.sb.Insert(table).Columns(cols...), make([]any, len(cols))
		for range n {
			ins = ins.Values(row...)
		}
		if suffix == "" {
			return ins
		}
		return ins.Suffix(suffix)
	}
	if n <= preparedRows {
		q, err := d.changeSQL.text([2]any{table, n}, text)
		if err != nil {
			return err
		}
		return d.exec(ctx, e, built{q, args})
	}
	q, _, err := d.build(text())
	if err != nil {
		return err
	}
	_, err = e.ExecContext(ctx, q, args...)
	return mapErr(err)
}

// lockHeads bumps the change_heads row of each reader of cs, in one
// statement, in user order (its rows are locked in their order).
func (d *DB) lockHeads(ctx context.Context, e sqlx.ExecerContext, cs []core.Change) error {
	users := make([]string, 0, 2)
	for _, c := range cs {
		users = append(users, c.UserID)
	}
	slices.Sort(users)
	users = slices.Compact(users)
	args := make([]any, 0, 2*len(users))
	for _, u := range users {
		args = append(args, u, 1)
	}
	return d.insertRows(ctx, e, "change_heads", headCols, d.upsert("user_id", "writes = writes + 1"), args)
}

// Append records changes in a transaction of their own (those a write did
// not: core.ChangesCommitted), but those read through a partnership that
// ended (throughLive).
func (r *ChangeRepo) Append(ctx context.Context, cs []core.Change) error {
	cs, err := r.db.renderChanges(append([]core.Change(nil), cs...))
	if err != nil {
		return err
	}
	return r.db.inTx(core.WithoutChanges(ctx), func(tx *sqlx.Tx) error {
		live, err := r.db.throughLive(ctx, tx, slices.Clone(cs)) // a re-run filters afresh
		if err != nil {
			return err
		}
		return r.db.insertChanges(ctx, tx, live)
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
