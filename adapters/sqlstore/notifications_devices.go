// This file holds NotificationRepo's devices (notification_devices): a
// token registered, moved from another user, listed and removed.

package sqlstore

import (
	"context"

	sq "github.com/Masterminds/squirrel"
	"github.com/jmoiron/sqlx"

	"tandem/core"
	"tandem/modules/notifications"
)

type deviceRow struct {
	ID        string `db:"id"`
	UserID    string `db:"user_id"`
	Token     string `db:"token"`
	Platform  string `db:"platform"`
	Provider  string `db:"provider"`
	CreatedAt int64  `db:"created_at"`
	UpdatedAt int64  `db:"updated_at"`
}

func (r deviceRow) device() notifications.Device {
	return notifications.Device{ID: r.ID, UserID: r.UserID, Token: r.Token, Platform: notifications.Platform(r.Platform),
		Provider: r.Provider, CreatedAt: core.FromMillis(r.CreatedAt), UpdatedAt: core.FromMillis(r.UpdatedAt)}
}

// RegisterDevice reads the token's device with a lock (on MySQL a missing
// one's gap), and the user's devices, runs decide, deletes what it forgets
// and upserts the device by its unique token (a registration of the same
// token that committed meanwhile becomes this one), then reads it back, in
// one transaction.
func (r *NotificationRepo) RegisterDevice(ctx context.Context, d notifications.Device, decide func(notifications.DeviceState) notifications.DeviceChange) (notifications.Device, error) {
	var out notifications.Device
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		var st notifications.DeviceState
		var held []deviceRow
		if err := r.db.selectInto(ctx, tx, &held, r.db.sb.Select(deviceColumns...).From("notification_devices").
			Where(sq.Eq{"token": d.Token}).Suffix(r.db.forUpdate())); err != nil {
			return err
		}
		if len(held) == 1 {
			holder := held[0].device()
			st.Holder = &holder
		}
		mine, err := r.devices(ctx, tx, d.UserID)
		if err != nil {
			return err
		}
		st.Mine = mine
		change := decide(st)
		if len(change.Forget) > 0 {
			if err := r.db.exec(ctx, tx, r.db.sb.Delete("notification_devices").Where(sq.Eq{"id": change.Forget})); err != nil {
				return err
			}
		}
		s := change.Save
		if err := r.db.exec(ctx, tx, r.db.sb.Insert("notification_devices").Columns(deviceColumns...).
			Values(s.ID, s.UserID, s.Token, string(s.Platform), s.Provider, s.CreatedAt.UnixMilli(), s.UpdatedAt.UnixMilli()).
			Suffix(r.db.upsertColumns("token", "user_id", "platform", "provider", "updated_at"))); err != nil {
			return err
		}
		var row deviceRow
		if err := r.db.get(ctx, tx, &row, r.db.sb.Select(deviceColumns...).From("notification_devices").
			Where(sq.Eq{"token": s.Token})); err != nil {
			return err
		}
		out = row.device()
		return nil
	})
	return out, err
}

func (r *NotificationRepo) Devices(ctx context.Context, userID string) ([]notifications.Device, error) {
	return r.devices(ctx, r.db, userID)
}

// devices reads through idx_notification_devices_user.
func (r *NotificationRepo) devices(ctx context.Context, q sqlx.QueryerContext, userID string) ([]notifications.Device, error) {
	var rows []deviceRow
	if err := r.db.selectInto(ctx, q, &rows, r.db.sb.Select(deviceColumns...).From("notification_devices").
		Where(sq.Eq{"user_id": userID}).OrderBy("updated_at DESC", "id DESC")); err != nil {
		return nil, err
	}
	out := make([]notifications.Device, len(rows))
	for i, row := range rows {
		out[i] = row.device()
	}
	return out, nil
}

func (r *NotificationRepo) RemoveDevice(ctx context.Context, userID, id string) error {
	return r.db.execOne(ctx, r.db, r.db.sb.Delete("notification_devices").Where(sq.Eq{"id": id, "user_id": userID}))
}

func (r *NotificationRepo) RemoveDevices(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	return r.db.exec(ctx, r.db, r.db.sb.Delete("notification_devices").Where(sq.Eq{"id": ids}))
}
