package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"sync"

	sq "github.com/Masterminds/squirrel"
	"github.com/jmoiron/sqlx"

	"tandem/core"
	"tandem/modules/idempotency"
)

// The helpers below build with squirrel, run with sqlx and map errors, so
// repositories state only their queries. They take the DB or a *sqlx.Tx.

func (d *DB) exec(ctx context.Context, e sqlx.ExecerContext, b sq.Sqlizer) error {
	_, err := d.execN(ctx, e, b)
	return err
}

// execOne fails with KindNotFound when no row was affected.
func (d *DB) execOne(ctx context.Context, e sqlx.ExecerContext, b sq.Sqlizer) error {
	n, err := d.execN(ctx, e, b)
	if err == nil && n == 0 {
		return core.NotFound("not_found", "memory.notFound", "not found")
	}
	return err
}

func (d *DB) execN(ctx context.Context, e sqlx.ExecerContext, b sq.Sqlizer) (int64, error) {
	if _, ok := e.(*DB); ok && (d.writes != nil || idempotency.PendingFrom(ctx) != nil || core.PendingChangesFrom(ctx) != nil) {
		// A write of its own on SQLite joins the next group commit (inTx);
		// one that carries a claimed Idempotency-Key commits with its mark,
		// one that carries changes with them.
		var n int64
		err := d.inTx(ctx, func(tx *sqlx.Tx) (err error) {
			n, err = d.execN(ctx, tx, b)
			return err
		})
		return n, err
	}
	q, args, err := d.build(b)
	if err != nil {
		return 0, err
	}
	var res sql.Result
	if st := d.prepared(ctx, e, q); st != nil {
		res, err = st.ExecContext(ctx, args...)
	} else {
		res, err = e.ExecContext(ctx, q, args...)
	}
	if _, own := e.(*DB); own { // MySQL: a write of its own, outside inTx
		d.full.note(mapErr(err))
	}
	if err != nil {
		return 0, mapErr(err)
	}
	n, err := res.RowsAffected()
	return n, mapErr(err)
}

func (d *DB) get(ctx context.Context, q sqlx.QueryerContext, dst any, b sq.Sqlizer) error {
	query, args, err := d.build(b)
	if err != nil {
		return err
	}
	if st := d.prepared(ctx, q, query); st != nil {
		return mapErr(st.GetContext(ctx, dst, args...))
	}
	return mapErr(sqlx.GetContext(ctx, q, dst, query, args...))
}

func (d *DB) selectInto(ctx context.Context, q sqlx.QueryerContext, dst any, b sq.Sqlizer) error {
	query, args, err := d.build(b)
	if err != nil {
		return err
	}
	if st := d.prepared(ctx, q, query); st != nil {
		return mapErr(st.SelectContext(ctx, dst, args...))
	}
	return mapErr(sqlx.SelectContext(ctx, q, dst, query, args...))
}

// fielder is a row type that lists its fields, in the order of its
// columns, for scanSelect.
type fielder[R any] interface {
	*R
	fields() []any
}

// scanSelect is selectInto for a hot list: each row is scanned straight
// into its fields, without sqlx's reflection per row (a list of 20 events
// spent a sixth of its time there).
func scanSelect[R any, P fielder[R]](ctx context.Context, d *DB, q sqlx.QueryerContext, b sq.Sqlizer) ([]R, error) {
	query, args, err := d.build(b)
	if err != nil {
		return nil, err
	}
	return scanRows[R, P](ctx, d, q, query, args, 0)
}

// scanRows runs a SELECT already built (d.build or d.built) and scans its
// rows as scanSelect does; n is how many rows to make room for.
func scanRows[R any, P fielder[R]](ctx context.Context, d *DB, q sqlx.QueryerContext, query string, args []any, n int) ([]R, error) {
	var (
		rows *sqlx.Rows
		err  error
	)
	if st := d.prepared(ctx, q, query); st != nil {
		rows, err = st.QueryxContext(ctx, args...)
	} else {
		rows, err = q.QueryxContext(ctx, query, args...)
	}
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	out := make([]R, 0, n)
	for rows.Next() {
		var r R
		if err := rows.Scan(P(&r).fields()...); err != nil {
			return nil, mapErr(err)
		}
		out = append(out, r)
	}
	return out, mapErr(rows.Err())
}

func (d *DB) build(b sq.Sqlizer) (string, []any, error) {
	q, args, err := b.ToSql()
	if err != nil {
		return "", nil, fmt.Errorf("sqlstore: build: %w", err)
	}
	d.built(q, args)
	return q, args, nil
}

// built counts a statement about to run and shows it to the tests'
// observer (the EXPLAIN of every query): build calls it, and so does a
// repository that runs a text from its queryMemo.
func (d *DB) built(q string, args []any) {
	d.statements.Add(1)
	if d.observe != nil {
		d.observe(q, args)
	}
}

// queryMemo keeps statement texts that squirrel built once, by shape: a
// hot read whose text depends only on a few choices (the event list with
// or without a cursor, and its limit) skips the builder on every call
// after the first. The arguments still travel as placeholders, in the
// order the builder gave them; each user of a memo has a test holding its
// texts and arguments equal to the builder's.
type queryMemo struct{ texts sync.Map } // shape key → string

// built is a statement whose text came from a queryMemo, with its
// arguments: a Sqlizer, so it runs through exec and the others as any.
type built struct {
	text string
	args []any
}

func (b built) ToSql() (string, []any, error) { return b.text, b.args, nil }

// text returns the text of the shape key, building it with b on the first
// call. The caller passes its arguments in the order b would have.
func (m *queryMemo) text(key any, b func() sq.Sqlizer) (string, error) {
	if q, ok := m.texts.Load(key); ok {
		return q.(string), nil
	}
	q, _, err := b().ToSql()
	if err != nil {
		return "", fmt.Errorf("sqlstore: build: %w", err)
	}
	m.texts.Store(key, q)
	return q, nil
}

// newestFirst reads one page of b, a list kept newest first on (created_at,
// id), from the page's cursor down; key gives a row's place for the next
// cursor.
func newestFirst[R any](ctx context.Context, d *DB, b sq.SelectBuilder, page core.Page, key func(R) core.TimeCursor) ([]R, string, error) {
	if page.Cursor != "" {
		c, err := core.ParseTimeCursor(page.Cursor)
		if err != nil {
			return nil, "", err
		}
		b = b.Where(olderThan(c.At, c.ID))
	}
	var rows []R
	if err := d.selectInto(ctx, d, &rows, b.OrderBy("created_at DESC", "id DESC").Limit(uint64(page.Size())+1)); err != nil {
		return nil, "", err
	}
	rows, next := core.CutPage(rows, page, func(row R) string { return key(row).String() })
	return rows, next, nil
}

// olderThan is the keyset condition of a newest-first list on (created_at,
// id): the rows after the cursor's, served by an index ending in those two.
func olderThan(at int64, id string) sq.Or {
	return sq.Or{sq.Lt{"created_at": at}, sq.And{sq.Eq{"created_at": at}, sq.Lt{"id": id}}}
}

// joinedColumns selects the columns of row type t from the table alias as
// "alias.column", a NULL (no row joined) read as the field's zero value:
// the row types scan no NULL into a string or a number.
func joinedColumns(alias string, t reflect.Type) []string {
	cols := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		col := fmt.Sprintf("%s.%s", alias, f.Tag.Get("db"))
		switch f.Type.Kind() {
		case reflect.String:
			col = fmt.Sprintf("COALESCE(%s, '')", col)
		case reflect.Bool, reflect.Int, reflect.Int64:
			col = fmt.Sprintf("COALESCE(%s, 0)", col)
		} // the rest (dbDate, sql.Null*) scan NULL themselves
		cols = append(cols, fmt.Sprintf(`%s AS "%s.%s"`, col, alias, f.Tag.Get("db")))
	}
	return cols
}
