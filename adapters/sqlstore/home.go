package sqlstore

import (
	"context"
	"reflect"

	sq "github.com/Masterminds/squirrel"

	"tandem/core"
	"tandem/modules/accounts"
	"tandem/modules/messages"
	"tandem/modules/notifications"
	"tandem/modules/partners"
	"tandem/modules/premium"
	"tandem/modules/relationship"
)

// HomeRepo is the home screen's read model: one statement reads the rows
// that six modules' reads of a home call would each fetch on their own (the
// caller's partnership, both accounts, both subscriptions, the couple's
// relationship, the unread count and the thread's newest message) and
// records them in the request's read memo. The modules then answer from
// their own rules as ever; only the fetching is shared.
type HomeRepo struct{ db *DB }

func NewHomeRepo(db *DB) *HomeRepo { return &HomeRepo{db: db} }

// homeRow is one home read: each part is the owning repository's own row
// type, scanned from the columns homeColumns names after it ("me.id", ...).
// A part a LEFT JOIN did not find reads as its zero value.
type homeRow struct {
	Me          accountRow      `db:"me"`
	Partnership partnershipRow  `db:"ps"`
	Partner     accountRow      `db:"partner"`
	MySub       premiumRow      `db:"mysub"`
	PartnerSub  premiumRow      `db:"partnersub"`
	Rel         relationshipRow `db:"rel"`
	Latest      messageRow      `db:"latest"`
	Unread      int             `db:"unread"`
}

// homeColumns are homeRow's columns: each table alias is the part's name.
var homeColumns = func() []string {
	var cols []string
	t := reflect.TypeFor[homeRow]()
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Type.Kind() == reflect.Struct {
			cols = append(cols, joinedColumns(f.Tag.Get("db"), f.Type)...)
		}
	}
	return cols
}()

// Prefetch reads userID's home rows in one statement into ctx's read memo;
// without a memo, or for an unknown user, it records nothing and the
// modules read for themselves.
func (r *HomeRepo) Prefetch(ctx context.Context, userID string) error {
	if !core.Memoized(ctx) {
		return nil
	}
	var row homeRow
	err := r.db.get(ctx, r.db, &row, r.query(userID))
	if isNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	row.remember(ctx, userID)
	return nil
}

// query joins from the caller's account along their partnership; the
// relationship and the newest message are the rows Latest and List would
// read first, by the same order on the same indexes.
func (r *HomeRepo) query(userID string) sq.SelectBuilder {
	return r.db.sb.Select(homeColumns...).
		Column(sq.Expr(`(SELECT COUNT(*) FROM notifications n WHERE n.user_id = me.id AND n.is_read = ?) AS unread`, false)).
		From("accounts me").
		LeftJoin("partnership_members m ON m.user_id = me.id").
		LeftJoin("partnerships ps ON ps.id = m.partnership_id").
		LeftJoin("accounts partner ON partner.id = m.partner_id").
		LeftJoin("premium_subscriptions mysub ON mysub.user_id = me.id").
		LeftJoin("premium_subscriptions partnersub ON partnersub.user_id = m.partner_id").
		LeftJoin(`relationships rel ON rel.id = (SELECT r2.id FROM relationships r2 WHERE r2.partnership_id = ps.id
			ORDER BY r2.is_active DESC, r2.created_at DESC, r2.id DESC LIMIT 1)`).
		LeftJoin(`messages latest ON latest.id = (SELECT l2.id FROM messages l2 WHERE l2.scope = COALESCE(ps.id, ?)
			ORDER BY l2.created_at DESC, l2.id DESC LIMIT 1)`, messages.SoloScope(userID)).
		Where(sq.Eq{"me.id": userID})
}

// remember records each part as its module's read memo answer.
func (row homeRow) remember(ctx context.Context, userID string) {
	accounts.Remember(ctx, row.Me.account())
	paired := row.Partnership.ID != ""
	partners.Remember(ctx, userID, row.Partnership.partnership(), paired)
	premium.Remember(ctx, userID, row.MySub.subscription(), row.MySub.UserID != "")
	notifications.RememberUnread(ctx, userID, row.Unread)
	messages.RememberLatest(ctx, messages.ScopeOf(userID, row.Partnership.ID), row.Latest.message(), row.Latest.ID != "")
	if !paired {
		return
	}
	if row.Partner.ID != "" {
		accounts.Remember(ctx, row.Partner.account())
	}
	partnerID := row.Partnership.partnership().PartnerOf(userID)
	premium.Remember(ctx, partnerID, row.PartnerSub.subscription(), row.PartnerSub.UserID != "")
	relationship.Remember(ctx, row.Partnership.ID, row.Rel.relationship(), row.Rel.ID != "")
}
