package sqlstore

import (
	"context"

	sq "github.com/Masterminds/squirrel"

	"tandem/core"
)

var _ core.Settings = (*SettingsRepo)(nil)

// SettingsRepo stores the values every process of a deployment shares
// (the settings table).
type SettingsRepo struct{ db *DB }

func NewSettingsRepo(db *DB) *SettingsRepo { return &SettingsRepo{db: db} }

// Ensure inserts value under name unless a row is there, then reads the
// row back: of processes racing on an empty table, the first insert wins
// and every one returns its value. MySQL's no-op update, not INSERT
// IGNORE, which would also turn other errors (a value too long) into
// warnings.
func (r *SettingsRepo) Ensure(ctx context.Context, name, value string) (string, error) {
	suffix := "ON CONFLICT(name) DO NOTHING"
	if r.db.Dialect == MySQL {
		suffix = "ON DUPLICATE KEY UPDATE name = name"
	}
	if err := r.db.exec(ctx, r.db, r.db.sb.Insert("settings").Columns("name", "value").Values(name, value).Suffix(suffix)); err != nil {
		return "", err
	}
	var stored string
	if err := r.db.get(ctx, r.db, &stored, r.db.sb.Select("value").From("settings").Where(sq.Eq{"name": name})); err != nil {
		return "", err
	}
	return stored, nil
}
