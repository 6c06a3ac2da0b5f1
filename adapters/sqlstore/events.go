package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/jmoiron/sqlx"

	"tandem/core"
	"tandem/modules/events"
)

var _ events.Repository = (*EventRepo)(nil)

// EventRepo stores calendar events. Every read of a user's events goes
// through (user_id, start_date, id): on SQLite the table's own key since
// migration 00040, on MySQL idx_events_user_start.
type EventRepo struct {
	db     *DB
	list   queryMemo // the list's texts by listShape
	insert queryMemo // Create's one text
	next   queryMemo // Next's texts by the number of users
}

func NewEventRepo(db *DB) *EventRepo { return &EventRepo{db: db} }

var eventColumns = []string{"id", "user_id", "title", "description", "start_date", "end_date",
	"start_time", "end_time", "location", "event_type", "importance", "notify", "participants",
	"created_at", "updated_at", "remind_at"}

type eventRow struct {
	ID           string        `db:"id"`
	UserID       string        `db:"user_id"`
	Title        string        `db:"title"`
	Description  string        `db:"description"`
	StartDate    dbDate        `db:"start_date"`
	EndDate      dbDate        `db:"end_date"`
	StartTime    string        `db:"start_time"`
	EndTime      string        `db:"end_time"`
	Location     string        `db:"location"`
	EventType    string        `db:"event_type"`
	Importance   string        `db:"importance"`
	Notify       sql.NullInt64 `db:"notify"`
	Participants string        `db:"participants"`
	CreatedAt    int64         `db:"created_at"`
	UpdatedAt    int64         `db:"updated_at"`
	RemindAt     sql.NullInt64 `db:"remind_at"`
}

// fields are the row's fields in eventColumns' order (scanSelect;
// TestRowFieldsFollowTheirColumns holds the two together).
func (r *eventRow) fields() []any {
	return []any{&r.ID, &r.UserID, &r.Title, &r.Description, &r.StartDate, &r.EndDate, &r.StartTime, &r.EndTime,
		&r.Location, &r.EventType, &r.Importance, &r.Notify, &r.Participants, &r.CreatedAt, &r.UpdatedAt, &r.RemindAt}
}

func (r eventRow) event() (events.Event, error) {
	e := events.Event{ID: r.ID, UserID: r.UserID, Title: r.Title, Description: r.Description,
		StartDate: r.StartDate.Date, EndDate: r.EndDate.Date, Location: r.Location,
		Type: events.Type(r.EventType), Importance: events.Importance(r.Importance),
		CreatedAt: core.FromMillis(r.CreatedAt), UpdatedAt: core.FromMillis(r.UpdatedAt)}
	var err error
	if e.StartTime, err = events.ParseWallTime("start_time", r.StartTime); err != nil {
		return events.Event{}, fmt.Errorf("sqlstore: event %s: %w", r.ID, err)
	}
	if e.EndTime, err = events.ParseWallTime("end_time", r.EndTime); err != nil {
		return events.Event{}, fmt.Errorf("sqlstore: event %s: %w", r.ID, err)
	}
	if r.Notify.Valid {
		e.Notify = events.Notify{Minutes: int(r.Notify.Int64), Set: true}
	}
	if r.RemindAt.Valid {
		e.RemindAt = core.FromMillis(r.RemindAt.Int64)
	}
	e.Participants = []string{}
	if r.Participants == "[]" { // most events: a list reads many, and the decoder costs 8 allocations
		return e, nil
	}
	if err := json.Unmarshal([]byte(r.Participants), &e.Participants); err != nil {
		return events.Event{}, fmt.Errorf("sqlstore: event %s participants: %w", r.ID, err)
	}
	if e.Participants == nil {
		e.Participants = []string{}
	}
	return e, nil
}

func eventValues(e events.Event) ([]any, error) {
	participants := e.Participants
	if participants == nil {
		participants = []string{}
	}
	p, err := json.Marshal(participants)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: event participants: %w", err)
	}
	var notify, remindAt any
	if e.Notify.Set {
		notify = e.Notify.Minutes
	}
	if !e.RemindAt.IsZero() {
		remindAt = e.RemindAt.UnixMilli()
	}
	return []any{e.ID, e.UserID, e.Title, e.Description, dateArg(e.StartDate), dateArg(e.EndDate),
		e.StartTime.String(), e.EndTime.String(), e.Location, string(e.Type), string(e.Importance), notify,
		string(p), e.CreatedAt.UnixMilli(), e.UpdatedAt.UnixMilli(), remindAt}, nil
}

func rowsToEvents(rows []eventRow) ([]events.Event, error) {
	out := make([]events.Event, len(rows))
	for i := range rows {
		e, err := rows[i].event()
		if err != nil {
			return nil, core.Internal(err)
		}
		out[i] = e
	}
	return out, nil
}

func (r *EventRepo) Create(ctx context.Context, e events.Event) error {
	v, err := eventValues(e)
	if err != nil {
		return core.Internal(err)
	}
	q, err := r.insert.text(0, func() sq.Sqlizer { return r.insertBuilder(v) })
	if err != nil {
		return err
	}
	return r.db.exec(ctx, r.db, built{q, v})
}

// insertBuilder is Create's statement as squirrel builds it; its text is
// the same for every event (TestEventInsertIsTheBuilders).
func (r *EventRepo) insertBuilder(v []any) sq.InsertBuilder {
	return r.db.sb.Insert("events").Columns(eventColumns...).Values(v...)
}

func (r *EventRepo) Get(ctx context.Context, id string) (events.Event, error) {
	return r.get(ctx, r.db, id, "")
}

func (r *EventRepo) get(ctx context.Context, q sqlx.QueryerContext, id, suffix string) (events.Event, error) {
	b := r.db.sb.Select(eventColumns...).From("events").Where(sq.Eq{"id": id})
	if suffix != "" {
		b = b.Suffix(suffix)
	}
	var row eventRow
	if err := r.db.get(ctx, q, &row, b); err != nil {
		return events.Event{}, err
	}
	e, err := row.event()
	if err != nil {
		return events.Event{}, core.Internal(err)
	}
	return e, nil
}

// List pages with a keyset on (start_date, id), the order of the index.
// Its text is built once per shape (listQuery); a page reads straight into
// a slice of its size.
func (r *EventRepo) List(ctx context.Context, userID string, page core.Page) ([]events.Event, string, error) {
	var c events.Cursor
	if page.Cursor != "" {
		var err error
		if c, err = events.ParseCursor(page.Cursor); err != nil {
			return nil, "", err
		}
	}
	query, args, err := r.listQuery(userID, page, c)
	if err != nil {
		return nil, "", err
	}
	r.db.built(query, args)
	rows, err := scanRows[eventRow](ctx, r.db, r.db, query, args, min(page.Size()+1, 64))
	if err != nil {
		return nil, "", err
	}
	evs, err := rowsToEvents(rows)
	if err != nil {
		return nil, "", err
	}
	evs, next := events.PageOf(evs, page)
	return evs, next, nil
}

// listShape is what a list's text depends on: a cursor or none, and the
// number of rows to read.
type listShape struct {
	cursor bool
	rows   uint64
}

// listQuery is the list's statement: its text from the memo, its arguments
// in the builder's order (TestEventListQueryIsTheBuilders holds the two to
// listSelect).
func (r *EventRepo) listQuery(userID string, page core.Page, c events.Cursor) (string, []any, error) {
	shape := listShape{cursor: page.Cursor != "", rows: uint64(page.Size() + 1)}
	var args []any
	if shape.cursor {
		d := c.StartDate.String()
		args = []any{userID, d, d, c.ID}
	} else {
		args = []any{userID}
	}
	q, err := r.list.text(shape, func() sq.Sqlizer { return r.listSelect(userID, shape, c) })
	return q, args, err
}

// listSelect builds the list's statement with squirrel.
func (r *EventRepo) listSelect(userID string, shape listShape, c events.Cursor) sq.SelectBuilder {
	b := r.db.sb.Select(eventColumns...).From("events").Where(sq.Eq{"user_id": userID})
	if shape.cursor {
		d := c.StartDate.String()
		b = b.Where(sq.Or{sq.Gt{"start_date": d}, sq.And{sq.Eq{"start_date": d}, sq.Gt{"id": c.ID}}})
	}
	return b.OrderBy("start_date", "id").Limit(shape.rows)
}

// Overlapping reads a bounded range of (user_id, start_date): an event that
// touches from starts at most events.MaxSpanDays before it.
func (r *EventRepo) Overlapping(ctx context.Context, userIDs []string, from, to core.Date) ([]events.Event, error) {
	rows, err := scanSelect[eventRow](ctx, r.db, r.db, r.db.sb.Select(eventColumns...).From("events").
		Where(sq.Eq{"user_id": userIDs}).
		Where(sq.GtOrEq{"start_date": events.StartBound(from).String()}).
		Where(sq.LtOrEq{"start_date": to.String()}).
		Where(sq.GtOrEq{"end_date": from.String()}).
		OrderBy("start_date", "id").Limit(core.MaxListItems))
	if err != nil {
		return nil, err
	}
	return rowsToEvents(rows)
}

// Next reads at most one event per user, in one statement: each user's
// first is a subquery on its range of the table (start dates from
// StartBound(from) to to) in NextOrder with LIMIT 1, which stops at the
// first start date that holds a match (the time of day is sorted within
// that date only) and skips ended events inside SQLite (or MySQL); the
// outer query orders those few by the same order. The date range's read of
// the same days decoded every event in them, up to core.MaxListItems.
func (r *EventRepo) Next(ctx context.Context, userIDs []string, from, to core.Date) (events.Event, bool, error) {
	if len(userIDs) == 0 {
		return events.Event{}, false, nil
	}
	query, args, err := r.nextQuery(userIDs, from, to)
	if err != nil {
		return events.Event{}, false, err
	}
	r.db.built(query, args)
	rows, err := scanRows[eventRow](ctx, r.db, r.db, query, args, 1)
	if err != nil || len(rows) == 0 {
		return events.Event{}, false, err
	}
	e, err := rows[0].event()
	if err != nil {
		return events.Event{}, false, core.Internal(err)
	}
	return e, true, nil
}

// nextQuery is nextSelect's text, built once per number of users (a home
// call runs it: squirrel's nested build cost a fifth more allocations than
// the whole call made before), and its arguments in the builder's order.
func (r *EventRepo) nextQuery(userIDs []string, from, to core.Date) (string, []any, error) {
	lo, hi, f := events.StartBound(from).String(), to.String(), from.String()
	args := make([]any, 0, 4*len(userIDs))
	for _, u := range userIDs {
		args = append(args, u, lo, hi, f)
	}
	q, err := r.next.text(len(userIDs), func() sq.Sqlizer { return r.nextSelect(userIDs, from, to) })
	return q, args, err
}

// nextSelect builds Next's statement with squirrel.
func (r *EventRepo) nextSelect(userIDs []string, from, to core.Date) sq.SelectBuilder {
	firsts := make(sq.Or, 0, len(userIDs))
	for _, u := range userIDs {
		first := r.db.sb.Select("id").From("events").
			Where(sq.Eq{"user_id": u}).
			Where(sq.GtOrEq{"start_date": events.StartBound(from).String()}).
			Where(sq.LtOrEq{"start_date": to.String()}).
			Where(sq.GtOrEq{"end_date": from.String()}).
			OrderBy(nextOrder...).Limit(1)
		// "id = (…)" each: MariaDB refuses LIMIT in an IN subquery.
		firsts = append(firsts, sq.Expr("id = (?)", first))
	}
	return r.db.sb.Select(eventColumns...).From("events").Where(firsts).OrderBy(nextOrder...).Limit(1)
}

// nextOrder is events.NextOrder in SQL: start_time is "HH:mm" or ”, so
// its text sorts as the module compares it.
var nextOrder = []string{"start_date", "start_time", "id"}

// eventUpdated are the columns an Update may change: all but the key, the
// owner and created_at.
var eventUpdated = []string{"title", "description", "start_date", "end_date", "start_time", "end_time",
	"location", "event_type", "importance", "notify", "participants", "updated_at", "remind_at"}

func (r *EventRepo) Update(ctx context.Context, id string, fn func(e *events.Event) error) (events.Event, error) {
	var out events.Event
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		e, err := r.get(ctx, tx, id, r.db.forUpdate())
		if err != nil {
			return err
		}
		old := e
		if err := fn(&e); err != nil {
			return err
		}
		e.ID, e.UserID, e.CreatedAt = old.ID, old.UserID, old.CreatedAt
		v, err := eventValues(e)
		if err != nil {
			return core.Internal(err)
		}
		set := make(map[string]any, len(eventUpdated))
		for i, col := range eventColumns {
			if slices.Contains(eventUpdated, col) {
				set[col] = v[i]
			}
		}
		out = e
		return r.db.execOne(ctx, tx, r.db.sb.Update("events").SetMap(set).Where(sq.Eq{"id": id}))
	})
	return out, err
}

func (r *EventRepo) Delete(ctx context.Context, userID, id string) error {
	return r.db.execOne(ctx, r.db, r.db.sb.Delete("events").Where(sq.Eq{"id": id, "user_id": userID}))
}

func (r *EventRepo) DeleteByUser(ctx context.Context, userID string) error {
	return r.db.exec(ctx, r.db, r.db.sb.Delete("events").Where(sq.Eq{"user_id": userID}))
}

func (r *EventRepo) DueReminders(ctx context.Context, now time.Time, limit int) ([]events.Event, error) {
	rows, err := scanSelect[eventRow](ctx, r.db, r.db, r.db.sb.Select(eventColumns...).From("events").
		Where(sq.LtOrEq{"remind_at": now.UnixMilli()}).Where(sq.NotEq{"remind_at": nil}).
		OrderBy("remind_at").Limit(uint64(limit)))
	if err != nil {
		return nil, err
	}
	return rowsToEvents(rows)
}

func (r *EventRepo) ClaimReminder(ctx context.Context, id string, at time.Time) (bool, error) {
	n, err := r.db.execN(ctx, r.db, r.db.sb.Update("events").Set("remind_at", nil).
		Where(sq.Eq{"id": id, "remind_at": at.UnixMilli()}))
	return n == 1, err
}
