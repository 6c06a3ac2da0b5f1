package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	sq "github.com/Masterminds/squirrel"

	"tandem/core"
	"tandem/modules/versions"
)

var _ versions.Repository = (*VersionRepo)(nil)

// VersionRepo stores one policy per platform in version_policies; the
// check reads it by its primary key.
type VersionRepo struct{ db *DB }

func NewVersionRepo(db *DB) *VersionRepo { return &VersionRepo{db: db} }

var versionColumns = []string{"platform", "min_required", "recommended", "latest", "download_url",
	"update_message", "release_notes", "deprecation_date", "updated_at"}

type versionRow struct {
	Platform        string        `db:"platform"`
	MinRequired     string        `db:"min_required"`
	Recommended     string        `db:"recommended"`
	Latest          string        `db:"latest"`
	DownloadURL     string        `db:"download_url"`
	UpdateMessage   string        `db:"update_message"`
	ReleaseNotes    string        `db:"release_notes"`
	DeprecationDate sql.NullInt64 `db:"deprecation_date"`
	UpdatedAt       int64         `db:"updated_at"`
}

func (r versionRow) policy() (versions.Policy, error) {
	p := versions.Policy{Platform: versions.Platform(r.Platform), DownloadURL: r.DownloadURL,
		UpdateMessage: r.UpdateMessage, ReleaseNotes: r.ReleaseNotes, UpdatedAt: core.FromMillis(r.UpdatedAt)}
	for _, f := range []struct {
		dst *core.Version
		s   string
	}{{&p.MinRequired, r.MinRequired}, {&p.Recommended, r.Recommended}, {&p.Latest, r.Latest}} {
		v, err := core.ParseVersion(f.s)
		if err != nil {
			return versions.Policy{}, core.Internal(fmt.Errorf("sqlstore: stored version %q of %s: %w", f.s, r.Platform, err))
		}
		*f.dst = v
	}
	if r.DeprecationDate.Valid {
		p.DeprecationDate = core.FromMillis(r.DeprecationDate.Int64)
	}
	return p, nil
}

func (r *VersionRepo) Get(ctx context.Context, platform versions.Platform) (versions.Policy, error) {
	var row versionRow
	if err := r.db.get(ctx, r.db, &row, r.db.sb.Select(versionColumns...).From("version_policies").
		Where(sq.Eq{"platform": string(platform)})); err != nil {
		return versions.Policy{}, err
	}
	return row.policy()
}

// Put is one upsert on the platform key.
func (r *VersionRepo) Put(ctx context.Context, p versions.Policy) error {
	return r.db.exec(ctx, r.db, r.db.sb.Insert("version_policies").Columns(versionColumns...).
		Values(string(p.Platform), p.MinRequired.String(), p.Recommended.String(), p.Latest.String(), p.DownloadURL,
			p.UpdateMessage, p.ReleaseNotes, deprecationArg(p.DeprecationDate), p.UpdatedAt.UnixMilli()).
		Suffix(r.db.upsertColumns("platform", versionColumns[1:]...)))
}

// deprecationArg is t in milliseconds, or NULL for the zero time (none).
func deprecationArg(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMilli()
}
