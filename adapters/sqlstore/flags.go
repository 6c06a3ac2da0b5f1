package sqlstore

import (
	"context"
	"database/sql"
	"slices"
	"strings"

	sq "github.com/Masterminds/squirrel"
	"github.com/jmoiron/sqlx"

	"tandem/core"
	"tandem/modules/flags"
)

var _ flags.Repository = (*FlagRepo)(nil)

// FlagRepo stores flags in feature_flags and their user lists in
// feature_flag_users (one row per listed user), so one user's place in a
// flag, or in every flag, is an indexed read that never loads whole lists.
type FlagRepo struct{ db *DB }

func NewFlagRepo(db *DB) *FlagRepo { return &FlagRepo{db: db} }

var flagColumns = []string{"flag_key", "id", "name", "description", "is_enabled", "enabled_for_premium",
	"rollout_percentage", "platforms", "created_by", "created_at", "updated_at"}

// flagUpdated are the columns an Update writes: not the key, id, creator or created_at.
var flagUpdated = []string{"name", "description", "is_enabled", "enabled_for_premium", "rollout_percentage",
	"platforms", "updated_at"}

// listedEnabled and listedDisabled are feature_flag_users.listed.
const (
	listedEnabled  = "enabled"
	listedDisabled = "disabled"
)

type flagRow struct {
	Key               string `db:"flag_key"`
	ID                string `db:"id"`
	Name              string `db:"name"`
	Description       string `db:"description"`
	IsEnabled         bool   `db:"is_enabled"`
	EnabledForPremium bool   `db:"enabled_for_premium"`
	RolloutPercentage int    `db:"rollout_percentage"`
	Platforms         string `db:"platforms"`
	CreatedBy         string `db:"created_by"`
	CreatedAt         int64  `db:"created_at"`
	UpdatedAt         int64  `db:"updated_at"`
}

// ruleRow is a flag row joined with one user's listing (NULL: unlisted).
type ruleRow struct {
	flagRow
	Listed sql.NullString `db:"listed"`
}

type flagUserRow struct {
	Key    string `db:"flag_key"`
	UserID string `db:"user_id"`
	Listed string `db:"listed"`
}

// flag is the row's flag with empty lists; withLists fills them.
func (r flagRow) flag() flags.Flag {
	ps := []flags.Platform{}
	if r.Platforms != "" {
		for _, p := range strings.Split(r.Platforms, ",") {
			ps = append(ps, flags.Platform(p))
		}
	}
	return flags.Flag{ID: r.ID, Key: r.Key, Name: r.Name, Description: r.Description, IsEnabled: r.IsEnabled,
		EnabledForPremium: r.EnabledForPremium, RolloutPercentage: r.RolloutPercentage, Platforms: ps,
		CreatedBy: r.CreatedBy, CreatedAt: core.FromMillis(r.CreatedAt), UpdatedAt: core.FromMillis(r.UpdatedAt),
		EnabledForUserIDs: []string{}, DisabledForUserIDs: []string{}}
}

func (r ruleRow) rule() flags.Rule {
	f := r.flag()
	f.EnabledForUserIDs, f.DisabledForUserIDs = nil, nil
	l := flags.Unlisted
	switch r.Listed.String {
	case listedEnabled:
		l = flags.ListedEnabled
	case listedDisabled:
		l = flags.ListedDisabled
	}
	return flags.Rule{Flag: f, Listing: l}
}

func flagValues(f flags.Flag) []any {
	ps := make([]string, len(f.Platforms))
	for i, p := range f.Platforms {
		ps[i] = string(p)
	}
	return []any{f.Key, f.ID, f.Name, f.Description, f.IsEnabled, f.EnabledForPremium, f.RolloutPercentage,
		strings.Join(ps, ","), f.CreatedBy, f.CreatedAt.UnixMilli(), f.UpdatedAt.UnixMilli()}
}

// Create inserts the flag, then counts with a locking read: concurrent
// creates wait for each other (or one is a deadlock victim and runs again),
// so the count cannot pass max.
func (r *FlagRepo) Create(ctx context.Context, f flags.Flag, room core.Room) error {
	return r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := r.db.exec(ctx, tx, r.db.sb.Insert("feature_flags").Columns(flagColumns...).Values(flagValues(f)...)); err != nil {
			return err
		}
		var n int64
		if err := r.db.get(ctx, tx, &n, r.db.sb.Select("COUNT(*)").From("feature_flags").Suffix(r.db.forUpdate())); err != nil {
			return err
		}
		if err := room.Allows(n - 1); err != nil { // n counts f
			return err
		}
		return r.insertUsers(ctx, tx, f)
	})
}

// insertUsers writes f's lists, in batches of at most 500 rows.
func (r *FlagRepo) insertUsers(ctx context.Context, e sqlx.ExecerContext, f flags.Flag) error {
	var rows [][3]string
	for _, id := range f.EnabledForUserIDs {
		rows = append(rows, [3]string{f.Key, id, listedEnabled})
	}
	for _, id := range f.DisabledForUserIDs {
		rows = append(rows, [3]string{f.Key, id, listedDisabled})
	}
	for batch := range slices.Chunk(rows, 500) {
		b := r.db.sb.Insert("feature_flag_users").Columns("flag_key", "user_id", "listed")
		for _, row := range batch {
			b = b.Values(row[0], row[1], row[2])
		}
		if err := r.db.exec(ctx, e, b); err != nil {
			return err
		}
	}
	return nil
}

func (r *FlagRepo) Get(ctx context.Context, key string) (flags.Flag, error) {
	return r.get(ctx, r.db, key, "")
}

func (r *FlagRepo) get(ctx context.Context, q sqlx.QueryerContext, key, suffix string) (flags.Flag, error) {
	var row flagRow
	b := r.db.sb.Select(flagColumns...).From("feature_flags").Where(sq.Eq{"flag_key": key})
	if suffix != "" {
		b = b.Suffix(suffix)
	}
	if err := r.db.get(ctx, q, &row, b); err != nil {
		return flags.Flag{}, err
	}
	fs := []flags.Flag{row.flag()}
	if err := r.withLists(ctx, q, fs, suffix); err != nil {
		return flags.Flag{}, err
	}
	return fs[0], nil
}

// withLists fills the lists of fs, which are in key order, with one range
// read of the key index; suffix locks the rows read (Update), so a
// concurrent Unlist waits instead of being undone by the rewrite.
func (r *FlagRepo) withLists(ctx context.Context, q sqlx.QueryerContext, fs []flags.Flag, suffix string) error {
	if len(fs) == 0 {
		return nil
	}
	var rows []flagUserRow
	b := r.db.sb.Select("flag_key", "user_id", "listed").From("feature_flag_users").
		Where(sq.GtOrEq{"flag_key": fs[0].Key}).Where(sq.LtOrEq{"flag_key": fs[len(fs)-1].Key}).
		OrderBy("flag_key", "user_id")
	if suffix != "" {
		b = b.Suffix(suffix)
	}
	if err := r.db.selectInto(ctx, q, &rows, b); err != nil {
		return err
	}
	at := map[string]int{}
	for i, f := range fs {
		at[f.Key] = i
	}
	for _, row := range rows {
		i, ok := at[row.Key]
		if !ok {
			continue
		}
		if row.Listed == listedDisabled {
			fs[i].DisabledForUserIDs = append(fs[i].DisabledForUserIDs, row.UserID)
		} else {
			fs[i].EnabledForUserIDs = append(fs[i].EnabledForUserIDs, row.UserID)
		}
	}
	return nil
}

// List reads a page of feature_flags by its key, then the page's lists.
func (r *FlagRepo) List(ctx context.Context, page core.Page) ([]flags.Flag, string, error) {
	b := r.db.sb.Select(flagColumns...).From("feature_flags").OrderBy("flag_key").Limit(uint64(page.Size() + 1))
	if page.Cursor != "" {
		c, err := flags.ParseCursor(page.Cursor)
		if err != nil {
			return nil, "", err
		}
		b = b.Where(sq.Gt{"flag_key": c.Key})
	}
	var rows []flagRow
	if err := r.db.selectInto(ctx, r.db, &rows, b); err != nil {
		return nil, "", err
	}
	fs := make([]flags.Flag, 0, len(rows))
	for _, row := range rows {
		fs = append(fs, row.flag())
	}
	fs, next := flags.PageOf(fs, page)
	if err := r.withLists(ctx, r.db, fs, ""); err != nil {
		return nil, "", err
	}
	return fs, next, nil
}

// Update locks the flag's row, applies fn and writes the row, and the
// lists only when they changed.
func (r *FlagRepo) Update(ctx context.Context, key string, fn func(f *flags.Flag) error) (flags.Flag, error) {
	var out flags.Flag
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		old, err := r.get(ctx, tx, key, r.db.forUpdate())
		if err != nil {
			return err
		}
		f := old
		f.EnabledForUserIDs, f.DisabledForUserIDs = slices.Clone(old.EnabledForUserIDs), slices.Clone(old.DisabledForUserIDs)
		f.Platforms = slices.Clone(old.Platforms)
		if err := fn(&f); err != nil {
			return err
		}
		f.ID, f.Key, f.CreatedBy, f.CreatedAt = old.ID, old.Key, old.CreatedBy, old.CreatedAt
		v := flagValues(f)
		set := map[string]any{}
		for i, col := range flagColumns {
			if slices.Contains(flagUpdated, col) {
				set[col] = v[i]
			}
		}
		if err := r.db.execOne(ctx, tx, r.db.sb.Update("feature_flags").SetMap(set).Where(sq.Eq{"flag_key": key})); err != nil {
			return err
		}
		if !slices.Equal(f.EnabledForUserIDs, old.EnabledForUserIDs) || !slices.Equal(f.DisabledForUserIDs, old.DisabledForUserIDs) {
			if err := r.db.exec(ctx, tx, r.db.sb.Delete("feature_flag_users").Where(sq.Eq{"flag_key": key})); err != nil {
				return err
			}
			if err := r.insertUsers(ctx, tx, f); err != nil {
				return err
			}
		}
		out = f
		return nil
	})
	return out, err
}

func (r *FlagRepo) Delete(ctx context.Context, key string) error {
	return r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := r.db.exec(ctx, tx, r.db.sb.Delete("feature_flag_users").Where(sq.Eq{"flag_key": key})); err != nil {
			return err
		}
		return r.db.execOne(ctx, tx, r.db.sb.Delete("feature_flags").Where(sq.Eq{"flag_key": key}))
	})
}

// rules selects flags joined with userID's row of each: both sides by key.
func (r *FlagRepo) rules(userID string) sq.SelectBuilder {
	cols := make([]string, 0, len(flagColumns)+1)
	for _, c := range flagColumns {
		cols = append(cols, "f."+c)
	}
	return r.db.sb.Select(append(cols, "u.listed")...).From("feature_flags f").
		LeftJoin("feature_flag_users u ON u.flag_key = f.flag_key AND u.user_id = ?", userID)
}

func (r *FlagRepo) RuleFor(ctx context.Context, key, userID string) (flags.Rule, error) {
	var row ruleRow
	if err := r.db.get(ctx, r.db, &row, r.rules(userID).Where(sq.Eq{"f.flag_key": key})); err != nil {
		return flags.Rule{}, err
	}
	return row.rule(), nil
}

func (r *FlagRepo) RulesFor(ctx context.Context, userID string) ([]flags.Rule, error) {
	var rows []ruleRow
	if err := r.db.selectInto(ctx, r.db, &rows, r.rules(userID).OrderBy("f.flag_key").Limit(flags.MaxFlags)); err != nil {
		return nil, err
	}
	out := make([]flags.Rule, 0, len(rows))
	for _, row := range rows {
		out = append(out, row.rule())
	}
	return out, nil
}

// Unlist deletes the user's rows through idx_feature_flag_users_user.
func (r *FlagRepo) Unlist(ctx context.Context, userID string) error {
	return r.db.exec(ctx, r.db, r.db.sb.Delete("feature_flag_users").Where(sq.Eq{"user_id": userID}))
}
