package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strings"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/jmoiron/sqlx"

	"tandem/core"
	"tandem/modules/premium"
)

var _ premium.Repository = (*PremiumRepo)(nil)

// PremiumRepo stores direct subscriptions in premium_subscriptions, keyed by user.
type PremiumRepo struct{ db *DB }

func NewPremiumRepo(db *DB) *PremiumRepo { return &PremiumRepo{db: db} }

var premiumColumns = []string{"user_id", "plan", "start_date", "end_date", "is_active", "cancelled",
	"billing_id", "platform", "last_renewed", "meta", "created_at", "updated_at",
	"store", "store_ref", "product_id", "state", "store_signed_at", "lapse_due"}

// premiumReplaced are the columns a Put overwrites: all but the key and created_at.
var premiumReplaced = []string{"plan", "start_date", "end_date", "is_active", "cancelled", "billing_id",
	"platform", "last_renewed", "meta", "updated_at", "store", "store_ref", "product_id", "state", "store_signed_at",
	"lapse_due"}

type premiumRow struct {
	UserID      string         `db:"user_id"`
	Plan        string         `db:"plan"`
	StartDate   int64          `db:"start_date"`
	EndDate     int64          `db:"end_date"`
	IsActive    bool           `db:"is_active"`
	Cancelled   bool           `db:"cancelled"`
	BillingID   string         `db:"billing_id"`
	Platform    string         `db:"platform"`
	LastRenewed int64          `db:"last_renewed"`
	Meta        string         `db:"meta"`
	CreatedAt   int64          `db:"created_at"`
	UpdatedAt   int64          `db:"updated_at"`
	Store       string         `db:"store"`
	StoreRef    sql.NullString `db:"store_ref"`
	ProductID   string         `db:"product_id"`
	State       string         `db:"state"`
	SignedAt    int64          `db:"store_signed_at"`
	LapseDue    sql.NullInt64  `db:"lapse_due"` // NULL: none due (idx_premium_lapse)
}

func (r premiumRow) subscription() premium.Subscription {
	return premium.Subscription{UserID: r.UserID, Plan: r.Plan, StartDate: core.FromMillis(r.StartDate),
		EndDate: core.FromMillis(r.EndDate), IsActive: r.IsActive, Cancelled: r.Cancelled, BillingID: r.BillingID,
		Platform: premium.Platform(r.Platform), LastRenewed: core.FromMillis(r.LastRenewed),
		Meta: json.RawMessage(r.Meta), CreatedAt: core.FromMillis(r.CreatedAt), UpdatedAt: core.FromMillis(r.UpdatedAt),
		Store: premium.Store(r.Store), StoreRef: r.StoreRef.String, ProductID: r.ProductID, State: premium.State(r.State),
		StoreSignedAt: core.FromMillis(r.SignedAt), LapseDue: fromNullMillis(r.LapseDue)}
}

// fromNullMillis is a nullable time column: NULL is the zero time.
func fromNullMillis(n sql.NullInt64) time.Time {
	if !n.Valid {
		return time.Time{}
	}
	return core.FromMillis(n.Int64)
}

// nullMillis stores the zero time as NULL.
func nullMillis(t time.Time) sql.NullInt64 {
	return sql.NullInt64{Int64: t.UnixMilli(), Valid: !t.IsZero()}
}

func premiumValues(s premium.Subscription) []any {
	meta := string(s.Meta)
	if meta == "" {
		meta = "{}"
	}
	ref := sql.NullString{String: s.StoreRef, Valid: s.Key() != ""} // NULL: unique among store purchases only
	return []any{s.UserID, s.Plan, s.StartDate.UnixMilli(), s.EndDate.UnixMilli(), s.IsActive, s.Cancelled,
		s.BillingID, string(s.Platform), s.LastRenewed.UnixMilli(), meta, s.CreatedAt.UnixMilli(), s.UpdatedAt.UnixMilli(),
		string(s.Store), ref, s.ProductID, string(s.State), s.StoreSignedAt.UnixMilli(), nullMillis(s.LapseDue)}
}

func (r *PremiumRepo) Get(ctx context.Context, userID string) (premium.Subscription, error) {
	return r.get(ctx, r.db, userID, "")
}

func (r *PremiumRepo) get(ctx context.Context, q sqlx.QueryerContext, userID, suffix string) (premium.Subscription, error) {
	return r.getWhere(ctx, q, sq.Eq{"user_id": userID}, suffix)
}

func (r *PremiumRepo) getWhere(ctx context.Context, q sqlx.QueryerContext, where sq.Eq, suffix string) (premium.Subscription, error) {
	var row premiumRow
	b := r.db.sb.Select(premiumColumns...).From("premium_subscriptions").Where(where)
	if suffix != "" {
		b = b.Suffix(suffix)
	}
	err := r.db.get(ctx, q, &row, b)
	return row.subscription(), err
}

// Put updates the user's row or inserts it, in one transaction. It is not
// an upsert: MySQL's would update whichever row holds a taken store_ref,
// another user's. Two first Puts for one user race on the key; the loser
// runs again and updates.
func (r *PremiumRepo) Put(ctx context.Context, s premium.Subscription) error {
	err := r.put(ctx, s)
	if core.IsKind(err, core.KindConflict) && !storeRefTaken(err) {
		err = r.put(ctx, s)
	}
	return inUse(err)
}

func (r *PremiumRepo) put(ctx context.Context, s premium.Subscription) error {
	return r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		current, err := r.get(ctx, tx, s.UserID, r.db.forUpdate())
		if core.IsKind(err, core.KindNotFound) {
			return r.db.exec(ctx, tx, r.db.sb.Insert("premium_subscriptions").Columns(premiumColumns...).
				Values(premiumValues(s)...))
		}
		if err != nil {
			return err
		}
		_, err = r.save(ctx, tx, current, func(sub *premium.Subscription) error {
			created := sub.CreatedAt
			*sub = s
			sub.CreatedAt = created
			return nil
		})
		return err
	})
}

// storeRefTaken tells a duplicate store_ref from a duplicate user_id: both
// dialects name the index or its columns in the message.
func storeRefTaken(err error) bool { return strings.Contains(err.Error(), "store_ref") }

// inUse names the one unique key a write can hit besides user_id.
func inUse(err error) error {
	if core.IsKind(err, core.KindConflict) && storeRefTaken(err) {
		return premium.ErrPurchaseInUse().Wrap(err)
	}
	return err
}

func (r *PremiumRepo) Update(ctx context.Context, userID string, fn func(s *premium.Subscription) error) (premium.Subscription, error) {
	var out premium.Subscription
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		s, err := r.get(ctx, tx, userID, r.db.forUpdate())
		if err != nil {
			return err
		}
		out, err = r.save(ctx, tx, s, fn)
		return err
	})
	return out, inUse(err)
}

// save applies fn to s and writes the result back, all in tx.
func (r *PremiumRepo) save(ctx context.Context, tx *sqlx.Tx, s premium.Subscription, fn func(s *premium.Subscription) error) (premium.Subscription, error) {
	userID := s.UserID
	if err := fn(&s); err != nil {
		return premium.Subscription{}, err
	}
	s.UserID = userID
	v := premiumValues(s)
	set := map[string]any{}
	for i, col := range premiumColumns {
		if slices.Contains(premiumReplaced, col) {
			set[col] = v[i]
		}
	}
	return s, r.db.execOne(ctx, tx, r.db.sb.Update("premium_subscriptions").SetMap(set).Where(sq.Eq{"user_id": userID}))
}

func (r *PremiumRepo) ApplyStoreEvent(ctx context.Context, eventID, key string, at time.Time, fn func(s *premium.Subscription) error) (applied, found bool, err error) {
	store, ref, _ := strings.Cut(key, ":")
	err = r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		applied, found = false, false
		err := r.db.exec(ctx, tx, r.db.sb.Insert("premium_store_events").Columns("id", "received_at").
			Values(eventID, at.UnixMilli()))
		if core.IsKind(err, core.KindConflict) {
			return nil // seen before; a failed statement leaves the transaction usable on both dialects
		}
		if err != nil {
			return err
		}
		applied = true
		s, err := r.getWhere(ctx, tx, sq.Eq{"store_ref": ref, "store": store}, r.db.forUpdate())
		if core.IsKind(err, core.KindNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		found = true
		_, err = r.save(ctx, tx, s, fn)
		return err
	})
	return applied, found, err
}

// ByKey reads the holder of a store key by uq_premium_store_ref.
func (r *PremiumRepo) ByKey(ctx context.Context, key string) (premium.Subscription, error) {
	store, ref, _ := strings.Cut(key, ":")
	return r.getWhere(ctx, r.db, sq.Eq{"store_ref": ref, "store": store}, "")
}

// DueLapses reads idx_premium_lapse's range up to now.
func (r *PremiumRepo) DueLapses(ctx context.Context, now time.Time, limit int) ([]premium.Subscription, error) {
	var rows []premiumRow
	err := r.db.selectInto(ctx, r.db, &rows, r.db.sb.Select(premiumColumns...).From("premium_subscriptions").
		Where(sq.LtOrEq{"lapse_due": now.UnixMilli()}).OrderBy("lapse_due", "user_id").Limit(uint64(limit)))
	out := make([]premium.Subscription, len(rows))
	for i, row := range rows {
		out[i] = row.subscription()
	}
	return out, err
}

func (r *PremiumRepo) Delete(ctx context.Context, userID string) error {
	return r.db.exec(ctx, r.db, r.db.sb.Delete("premium_subscriptions").Where(sq.Eq{"user_id": userID}))
}

// upsertColumns is upsert with every listed column taking the inserted value.
func (d *DB) upsertColumns(conflictCols string, cols ...string) string {
	set := make([]string, len(cols))
	for i, c := range cols {
		if d.Dialect == MySQL {
			set[i] = c + " = VALUES(" + c + ")"
		} else {
			set[i] = c + " = excluded." + c
		}
	}
	return d.upsert(conflictCols, strings.Join(set, ", "))
}

// forUpdate locks the selected rows until the transaction ends on MySQL;
// SQLite transactions are IMMEDIATE and hold the write lock already.
func (d *DB) forUpdate() string {
	if d.Dialect == MySQL {
		return "FOR UPDATE"
	}
	return ""
}
