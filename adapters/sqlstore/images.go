package sqlstore

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/jmoiron/sqlx"

	"tandem/core"
	"tandem/modules/images"
)

var _ images.Repository = (*ImageRepo)(nil)

// ImageRepo stores images. The unique index on blob_key keeps one image per
// file, even under concurrent relinks.
type ImageRepo struct{ db *DB }

func NewImageRepo(db *DB) *ImageRepo { return &ImageRepo{db: db} }

// imageColumns: an image's address is not stored (images.Image.URL), only
// its key: the service renders it from TANDEM_PUBLIC_URL when read.
var imageColumns = []string{"id", "user_id", "group_id", "seq", "blob_key", "size", "created_at", "updated_at",
	"width", "height", "blurhash"}

type imageRow struct {
	ID        string `db:"id"`
	UserID    string `db:"user_id"`
	GroupID   string `db:"group_id"`
	Seq       int    `db:"seq"`
	BlobKey   string `db:"blob_key"`
	Size      int64  `db:"size"`
	CreatedAt int64  `db:"created_at"`
	UpdatedAt int64  `db:"updated_at"`
	Width     int    `db:"width"`
	Height    int    `db:"height"`
	BlurHash  string `db:"blurhash"`
}

func (r imageRow) image() images.Image {
	return images.Image{ID: r.ID, UserID: r.UserID, GroupID: r.GroupID, Seq: r.Seq, Key: r.BlobKey,
		Size: r.Size, CreatedAt: core.FromMillis(r.CreatedAt), UpdatedAt: core.FromMillis(r.UpdatedAt),
		Width: r.Width, Height: r.Height, BlurHash: r.BlurHash}
}

func rowsToImages(rows []imageRow) []images.Image {
	out := make([]images.Image, len(rows))
	for i, row := range rows {
		out[i] = row.image()
	}
	return out
}

// selectImages reads the images matching where, in the given order; suffix
// is "" or a lock (forUpdate).
func (r *ImageRepo) selectImages(ctx context.Context, q sqlx.QueryerContext, where sq.Sqlizer, suffix string,
	orderBy ...string) ([]images.Image, error) {
	b := r.db.sb.Select(imageColumns...).From("images").Where(where).OrderBy(orderBy...)
	if suffix != "" {
		b = b.Suffix(suffix)
	}
	var rows []imageRow
	if err := r.db.selectInto(ctx, q, &rows, b); err != nil {
		return nil, err
	}
	return rowsToImages(rows), nil
}

// Create sums the owner's sizes and inserts in one transaction that first
// takes the owner's image_owners row (lockOwner), so the uploads of one user
// run one after another and none can pass room.
func (r *ImageRepo) Create(ctx context.Context, imgs []images.Image, room core.Room) error {
	if len(imgs) == 0 {
		return nil
	}
	b := r.db.sb.Insert("images").Columns(imageColumns...)
	for _, img := range imgs {
		b = b.Values(img.ID, img.UserID, img.GroupID, img.Seq, img.Key, img.Size,
			img.CreatedAt.UnixMilli(), img.UpdatedAt.UnixMilli(), img.Width, img.Height, img.BlurHash)
	}
	if room == nil {
		return r.db.exec(ctx, r.db, b) // one statement: all rows or none
	}
	userID := imgs[0].UserID
	return r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := lockOwner(ctx, r.db, tx, "image_owners", userID); err != nil {
			return err
		}
		used, err := r.storedBytes(ctx, tx, userID)
		if err != nil {
			return err
		}
		if err := room.Allows(used); err != nil {
			return err
		}
		return r.db.exec(ctx, tx, b)
	})
}

func (r *ImageRepo) StoredBytes(ctx context.Context, userID string) (int64, error) {
	return r.storedBytes(ctx, r.db, userID)
}

// storedBytes reads idx_images_user_size only.
func (r *ImageRepo) storedBytes(ctx context.Context, q sqlx.QueryerContext, userID string) (int64, error) {
	var n int64
	err := r.db.get(ctx, q, &n, r.db.sb.Select("COALESCE(SUM(size), 0)").From("images").Where(sq.Eq{"user_id": userID}))
	return n, err
}

func (r *ImageRepo) Get(ctx context.Context, userID, id string) (images.Image, error) {
	var row imageRow
	err := r.db.get(ctx, r.db, &row, r.db.sb.Select(imageColumns...).From("images").
		Where(sq.Eq{"id": id, "user_id": userID}))
	return row.image(), err
}

func (r *ImageRepo) ByKey(ctx context.Context, key string) (images.Image, error) {
	var row imageRow
	err := r.db.get(ctx, r.db, &row, r.db.sb.Select(imageColumns...).From("images").Where(sq.Eq{"blob_key": key}))
	return row.image(), err
}

// Held reads uq_images_blob_key once for the whole page of keys.
func (r *ImageRepo) Held(ctx context.Context, keys []string) (map[string]bool, error) {
	held := map[string]bool{}
	if len(keys) == 0 {
		return held, nil
	}
	var found []string
	if err := r.db.selectInto(ctx, r.db, &found, r.db.sb.Select("blob_key").From("images").Where(sq.Eq{"blob_key": keys})); err != nil {
		return nil, err
	}
	for _, k := range found {
		held[k] = true
	}
	return held, nil
}

// List pages through idx_images_user_created from the newest end; the
// position condition is a range on that index.
func (r *ImageRepo) List(ctx context.Context, userID string, after *images.Position, n int) ([]images.Image, error) {
	b := r.db.sb.Select(imageColumns...).From("images").Where(sq.Eq{"user_id": userID}).
		OrderBy("created_at DESC", "id DESC")
	if after != nil {
		ms := after.CreatedAt.UnixMilli()
		b = b.Where(olderThan(ms, after.ID))
	}
	if n > 0 {
		b = b.Limit(uint64(n))
	}
	var rows []imageRow
	if err := r.db.selectInto(ctx, r.db, &rows, b); err != nil {
		return nil, err
	}
	return rowsToImages(rows), nil
}

func (r *ImageRepo) Group(ctx context.Context, userID, groupID string) ([]images.Image, error) {
	return r.selectImages(ctx, r.db, sq.Eq{"user_id": userID, "group_id": groupID}, "", "seq", "id")
}

// Relink locks the changed images and the holders of the new keys, lets
// images.PlanRelink decide, then applies the plan. Keys that move between
// the changed images (a swap) are first parked on a value no key can take
// ("~" + id), so the unique index never sees two rows with one key.
func (r *ImageRepo) Relink(ctx context.Context, userID, groupID string, changes []images.Change, at time.Time) ([]images.Image, []string, error) {
	ids, keys := make([]string, len(changes)), make([]string, len(changes))
	for i, c := range changes {
		ids[i], keys[i] = c.ID, c.Key
	}
	var plan images.RelinkPlan
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		targets, err := r.selectImages(ctx, tx, sq.Eq{"id": ids}, r.db.forUpdate(), "id")
		if err != nil {
			return err
		}
		holders, err := r.selectImages(ctx, tx, sq.Eq{"blob_key": keys}, r.db.forUpdate(), "id")
		if err != nil {
			return err
		}
		byID, byKey := map[string]images.Image{}, map[string]images.Image{}
		for _, img := range targets {
			byID[img.ID] = img
		}
		for _, img := range holders {
			byKey[img.Key] = img
		}
		plan, err = images.PlanRelink(userID, groupID, changes, at,
			func(id string) (images.Image, bool) { img, ok := byID[id]; return img, ok },
			func(key string) (images.Image, bool) { img, ok := byKey[key]; return img, ok })
		if err != nil {
			return err
		}
		if len(plan.Removed) > 0 {
			removed := make([]string, len(plan.Removed))
			for i, img := range plan.Removed {
				removed[i] = img.ID
			}
			if err := r.db.exec(ctx, tx, r.db.sb.Delete("images").Where(sq.Eq{"id": removed})); err != nil {
				return err
			}
		}
		for i, img := range plan.Changed {
			if img.Key == plan.Before[i].Key {
				continue
			}
			if err := r.db.execOne(ctx, tx, r.db.sb.Update("images").Set("blob_key", "~"+img.ID).
				Where(sq.Eq{"id": img.ID})); err != nil {
				return err
			}
		}
		for _, img := range plan.Changed {
			if err := r.db.execOne(ctx, tx, r.db.sb.Update("images").Set("blob_key", img.Key).
				Set("size", img.Size).Set("updated_at", img.UpdatedAt.UnixMilli()).
				Set("width", img.Width).Set("height", img.Height).Set("blurhash", img.BlurHash).Where(sq.Eq{"id": img.ID})); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return plan.Changed, plan.Freed, nil
}

func (r *ImageRepo) Delete(ctx context.Context, userID, id string) (images.Image, error) {
	var out images.Image
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		var row imageRow
		if err := r.db.get(ctx, tx, &row, r.db.sb.Select(imageColumns...).From("images").
			Where(sq.Eq{"id": id, "user_id": userID}).Suffix(r.db.forUpdate())); err != nil {
			return err
		}
		out = row.image()
		return r.db.execOne(ctx, tx, r.db.sb.Delete("images").Where(sq.Eq{"id": id}))
	})
	return out, err
}

func (r *ImageRepo) DeleteGroup(ctx context.Context, userID, groupID string) ([]images.Image, error) {
	var out []images.Image
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		where := sq.Eq{"user_id": userID, "group_id": groupID}
		imgs, err := r.selectImages(ctx, tx, where, r.db.forUpdate(), "seq", "id")
		if err != nil {
			return err
		}
		if len(imgs) == 0 {
			return core.NotFound("not_found", "memory.noSuchGroup", "no such group")
		}
		out = imgs
		return r.db.exec(ctx, tx, r.db.sb.Delete("images").Where(where))
	})
	return out, err
}

func (r *ImageRepo) DeleteByUser(ctx context.Context, userID string) error {
	return r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := r.db.exec(ctx, tx, r.db.sb.Delete("images").Where(sq.Eq{"user_id": userID})); err != nil {
			return err
		}
		return r.db.exec(ctx, tx, r.db.sb.Delete("image_owners").Where(sq.Eq{"user_id": userID}))
	})
}
