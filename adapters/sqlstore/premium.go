package sqlstore

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

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
	"billing_id", "platform", "last_renewed", "meta", "created_at", "updated_at"}

// premiumReplaced are the columns a Put overwrites: all but the key and created_at.
var premiumReplaced = []string{"plan", "start_date", "end_date", "is_active", "cancelled", "billing_id",
	"platform", "last_renewed", "meta", "updated_at"}

type premiumRow struct {
	UserID      string `db:"user_id"`
	Plan        string `db:"plan"`
	StartDate   int64  `db:"start_date"`
	EndDate     int64  `db:"end_date"`
	IsActive    bool   `db:"is_active"`
	Cancelled   bool   `db:"cancelled"`
	BillingID   string `db:"billing_id"`
	Platform    string `db:"platform"`
	LastRenewed int64  `db:"last_renewed"`
	Meta        string `db:"meta"`
	CreatedAt   int64  `db:"created_at"`
	UpdatedAt   int64  `db:"updated_at"`
}

func (r premiumRow) subscription() premium.Subscription {
	return premium.Subscription{UserID: r.UserID, Plan: r.Plan, StartDate: core.FromMillis(r.StartDate),
		EndDate: core.FromMillis(r.EndDate), IsActive: r.IsActive, Cancelled: r.Cancelled, BillingID: r.BillingID,
		Platform: premium.Platform(r.Platform), LastRenewed: core.FromMillis(r.LastRenewed),
		Meta: json.RawMessage(r.Meta), CreatedAt: core.FromMillis(r.CreatedAt), UpdatedAt: core.FromMillis(r.UpdatedAt)}
}

func premiumValues(s premium.Subscription) []any {
	meta := string(s.Meta)
	if meta == "" {
		meta = "{}"
	}
	return []any{s.UserID, s.Plan, s.StartDate.UnixMilli(), s.EndDate.UnixMilli(), s.IsActive, s.Cancelled,
		s.BillingID, string(s.Platform), s.LastRenewed.UnixMilli(), meta, s.CreatedAt.UnixMilli(), s.UpdatedAt.UnixMilli()}
}

func (r *PremiumRepo) Get(ctx context.Context, userID string) (premium.Subscription, error) {
	return r.get(ctx, r.db, userID, "")
}

func (r *PremiumRepo) get(ctx context.Context, q sqlx.QueryerContext, userID, suffix string) (premium.Subscription, error) {
	var row premiumRow
	b := r.db.sb.Select(premiumColumns...).From("premium_subscriptions").Where(sq.Eq{"user_id": userID})
	if suffix != "" {
		b = b.Suffix(suffix)
	}
	err := r.db.get(ctx, q, &row, b)
	return row.subscription(), err
}

// Put is one upsert: a concurrent Put for the same user cannot fail on the key.
func (r *PremiumRepo) Put(ctx context.Context, s premium.Subscription) error {
	return r.db.exec(ctx, r.db, r.db.sb.Insert("premium_subscriptions").Columns(premiumColumns...).
		Values(premiumValues(s)...).Suffix(r.db.upsertColumns("user_id", premiumReplaced...)))
}

func (r *PremiumRepo) Update(ctx context.Context, userID string, fn func(s *premium.Subscription) error) (premium.Subscription, error) {
	var out premium.Subscription
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		s, err := r.get(ctx, tx, userID, r.db.forUpdate())
		if err != nil {
			return err
		}
		if err := fn(&s); err != nil {
			return err
		}
		s.UserID = userID
		v := premiumValues(s)
		set := map[string]any{}
		for i, col := range premiumColumns {
			if slices.Contains(premiumReplaced, col) {
				set[col] = v[i]
			}
		}
		out = s
		return r.db.execOne(ctx, tx, r.db.sb.Update("premium_subscriptions").SetMap(set).Where(sq.Eq{"user_id": userID}))
	})
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
