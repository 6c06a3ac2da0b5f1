package sqlstore

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/jmoiron/sqlx"

	"tandem/core"
	"tandem/modules/relationship"
)

var _ relationship.Repository = (*RelationshipRepo)(nil)

// RelationshipRepo stores relationships. The unique index on the generated
// column active_partnership_id (the partnership id while active, NULL once
// ended) allows one active relationship per partnership even under races.
type RelationshipRepo struct{ db *DB }

func NewRelationshipRepo(db *DB) *RelationshipRepo { return &RelationshipRepo{db: db} }

var relationshipColumns = []string{"id", "partnership_id", "member_a", "member_b", "start_date", "end_date",
	"is_active", "created_at", "updated_at"}

type relationshipRow struct {
	ID            string `db:"id"`
	PartnershipID string `db:"partnership_id"`
	MemberA       string `db:"member_a"`
	MemberB       string `db:"member_b"`
	StartDate     dbDate `db:"start_date"`
	EndDate       dbDate `db:"end_date"`
	IsActive      bool   `db:"is_active"`
	CreatedAt     int64  `db:"created_at"`
	UpdatedAt     int64  `db:"updated_at"`
}

func (r relationshipRow) relationship() relationship.Relationship {
	return relationship.Relationship{ID: r.ID, PartnershipID: r.PartnershipID, Members: [2]string{r.MemberA, r.MemberB},
		StartDate: r.StartDate.Date, EndDate: r.EndDate.Date, Active: r.IsActive,
		CreatedAt: core.FromMillis(r.CreatedAt), UpdatedAt: core.FromMillis(r.UpdatedAt)}
}

func (r *RelationshipRepo) Start(ctx context.Context, rel relationship.Relationship) error {
	return r.db.exec(ctx, r.db, r.db.sb.Insert("relationships").Columns(relationshipColumns...).
		Values(rel.ID, rel.PartnershipID, rel.Members[0], rel.Members[1], dateArg(rel.StartDate), nil, true,
			rel.CreatedAt.UnixMilli(), rel.UpdatedAt.UnixMilli()))
}

// Latest reads through idx_relationships_partnership; a partnership has few rows.
func (r *RelationshipRepo) Latest(ctx context.Context, partnershipID string) (relationship.Relationship, error) {
	var row relationshipRow
	err := r.db.get(ctx, r.db, &row, r.db.sb.Select(relationshipColumns...).From("relationships").
		Where(sq.Eq{"partnership_id": partnershipID}).
		OrderBy("is_active DESC", "created_at DESC", "id DESC").Limit(1))
	return row.relationship(), err
}

func (r *RelationshipRepo) End(ctx context.Context, id string, on core.Date, at time.Time) (relationship.Relationship, error) {
	var out relationship.Relationship
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		// Only an active row matches, so a concurrent end makes this one NotFound.
		if err := r.db.execOne(ctx, tx, r.db.sb.Update("relationships").
			Set("is_active", false).Set("end_date", dateArg(on)).Set("updated_at", at.UnixMilli()).
			Where(sq.Eq{"id": id, "is_active": true})); err != nil {
			return err
		}
		var row relationshipRow
		if err := r.db.get(ctx, tx, &row, r.db.sb.Select(relationshipColumns...).From("relationships").
			Where(sq.Eq{"id": id})); err != nil {
			return err
		}
		out = row.relationship()
		return nil
	})
	return out, err
}

// ListByUser reads through idx_relationships_member_a and _member_b.
func (r *RelationshipRepo) ListByUser(ctx context.Context, userID string) ([]relationship.Relationship, error) {
	var rows []relationshipRow
	if err := r.db.selectInto(ctx, r.db, &rows, r.db.sb.Select(relationshipColumns...).From("relationships").
		Where(sq.Or{sq.Eq{"member_a": userID}, sq.Eq{"member_b": userID}}).
		OrderBy("created_at DESC", "id DESC")); err != nil {
		return nil, err
	}
	out := make([]relationship.Relationship, len(rows))
	for i, row := range rows {
		out[i] = row.relationship()
	}
	return out, nil
}

func (r *RelationshipRepo) DeleteByUser(ctx context.Context, userID string) error {
	return r.db.exec(ctx, r.db, r.db.sb.Delete("relationships").
		Where(sq.Or{sq.Eq{"member_a": userID}, sq.Eq{"member_b": userID}}))
}
