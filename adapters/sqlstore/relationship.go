package sqlstore

import (
	"context"
	"slices"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/jmoiron/sqlx"

	"tandem/core"
	"tandem/modules/relationship"
)

var (
	_ relationship.Repository          = (*RelationshipRepo)(nil)
	_ relationship.MilestoneRepository = (*RelationshipRepo)(nil)
)

// RelationshipRepo stores relationships, their milestone checks (the
// milestone_at column, NULL once ended) and milestone_pushes. The unique
// index on the generated column active_partnership_id (the partnership id
// while active, NULL once ended) allows one active relationship per
// partnership even under races.
type RelationshipRepo struct{ db *DB }

func NewRelationshipRepo(db *DB) *RelationshipRepo { return &RelationshipRepo{db: db} }

var relationshipColumns = []string{"id", "partnership_id", "member_a", "member_b", "start_date", "end_date",
	"is_active", "created_at", "updated_at"}

// checkColumns are a relationship's columns and its milestone check.
var checkColumns = slices.Concat(relationshipColumns, []string{"milestone_at"})

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

// Start inserts the row with its milestone check due at once.
func (r *RelationshipRepo) Start(ctx context.Context, rel relationship.Relationship) error {
	return r.db.exec(ctx, r.db, r.db.sb.Insert("relationships").Columns(checkColumns...).
		Values(rel.ID, rel.PartnershipID, rel.Members[0], rel.Members[1], dateArg(rel.StartDate), nil, true,
			rel.CreatedAt.UnixMilli(), rel.UpdatedAt.UnixMilli(), rel.CreatedAt.UnixMilli()))
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
			Set("is_active", false).Set("end_date", dateArg(on)).Set("updated_at", at.UnixMilli()).Set("milestone_at", nil).
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

// DeleteByUser reads the ids first, so that each delete goes through a key
// (the claims' primary key starts with the relationship id).
func (r *RelationshipRepo) DeleteByUser(ctx context.Context, userID string) error {
	return r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		var ids []string
		if err := r.db.selectInto(ctx, tx, &ids, r.db.sb.Select("id").From("relationships").
			Where(sq.Or{sq.Eq{"member_a": userID}, sq.Eq{"member_b": userID}})); err != nil {
			return err
		}
		if len(ids) == 0 {
			return nil
		}
		if err := r.db.exec(ctx, tx, r.db.sb.Delete("milestone_pushes").Where(sq.Eq{"relationship_id": ids})); err != nil {
			return err
		}
		return r.db.exec(ctx, tx, r.db.sb.Delete("relationships").Where(sq.Eq{"id": ids}))
	})
}

type milestoneCheckRow struct {
	relationshipRow
	MilestoneAt int64 `db:"milestone_at"`
}

// DueMilestones reads idx_relationships_milestone up to now; ended
// relationships have no milestone_at.
func (r *RelationshipRepo) DueMilestones(ctx context.Context, now time.Time, limit int) ([]relationship.MilestoneCheck, error) {
	var rows []milestoneCheckRow
	if err := r.db.selectInto(ctx, r.db, &rows, r.db.sb.Select(checkColumns...).
		From("relationships").Where(sq.LtOrEq{"milestone_at": now.UnixMilli()}).
		OrderBy("milestone_at", "id").Limit(uint64(limit))); err != nil {
		return nil, err
	}
	out := make([]relationship.MilestoneCheck, len(rows))
	for i, row := range rows {
		out[i] = relationship.MilestoneCheck{Relationship: row.relationship(), At: core.FromMillis(row.MilestoneAt)}
	}
	return out, nil
}

func (r *RelationshipRepo) MoveMilestones(ctx context.Context, relationshipID string, from, to time.Time) (bool, error) {
	n, err := r.db.execN(ctx, r.db, r.db.sb.Update("relationships").Set("milestone_at", to.UnixMilli()).
		Where(sq.Eq{"id": relationshipID, "milestone_at": from.UnixMilli()}))
	return n == 1, err
}

func (r *RelationshipRepo) RecheckMilestones(ctx context.Context, relationshipID string, at time.Time) error {
	return r.db.exec(ctx, r.db, r.db.sb.Update("relationships").Set("milestone_at", at.UnixMilli()).
		Where(sq.Eq{"id": relationshipID, "is_active": true}))
}

// ClaimMilestone inserts the (relationship, user, day) row; the primary key
// refuses a second one, whoever inserts it.
func (r *RelationshipRepo) ClaimMilestone(ctx context.Context, userID, relationshipID string, day core.Date, at time.Time) (bool, error) {
	err := r.db.exec(ctx, r.db, r.db.sb.Insert("milestone_pushes").Columns("relationship_id", "user_id", "day", "sent_at").
		Values(relationshipID, userID, dateArg(day), at.UnixMilli()))
	if core.IsKind(err, core.KindConflict) {
		return false, nil
	}
	return err == nil, err
}
