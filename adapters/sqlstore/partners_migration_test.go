package sqlstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/pressly/goose/v3"

	"tandem/adapters/sqlstore"
	"tandem/core"
	"tandem/migrations"
	"tandem/modules/notifications"
	"tandem/modules/partners"
)

// TestStoredCodesThatDifferOnlyInCaseSurviveMigration00017: before 00017
// codes were unique in their exact spelling, so "AbCd", "abcd" and "ABCD"
// may all be stored. The migration must not fail on them: the oldest gets
// the lower-case key, the others are found by their exact spelling.
func TestStoredCodesThatDifferOnlyInCaseSurviveMigration00017(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		ctx := context.Background()
		db := newDB(t)
		p := gooseProvider(t, db)
		if _, err := p.DownTo(ctx, 16); err != nil {
			t.Fatal(err)
		}
		for _, row := range []struct {
			user, code string
			at         int64
		}{{"u1", "AbCd", 1}, {"u2", "abcd", 2}, {"u3", "ABCD", 2}, {"u4", "Solo-Code", 3}} {
			if _, err := db.Exec("INSERT INTO partner_connections (user_id, id, code, created_at) VALUES (?, ?, ?, ?)",
				row.user, "c-"+row.user, row.code, row.at); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := p.Up(ctx); err != nil {
			t.Fatal(err)
		}

		repo := sqlstore.NewPartnerRepo(db)
		for typed, owner := range map[string]string{"aBcD": "u1", "AbCd": "u1", "abcd": "u2", "ABCD": "u3", "SOLO-code": "u4"} {
			c, err := repo.ConnectionByCode(ctx, typed)
			if err != nil || c.UserID != owner {
				t.Fatalf("%q: %+v %v, want %s's", typed, c, err, owner)
			}
		}
		err := repo.PutConnection(ctx, partners.Connection{ID: "c-u5", UserID: "u5", Code: "aBCD", CreatedAt: time.Now()})
		if !core.IsKind(err, core.KindConflict) {
			t.Fatalf("a new code taking the key: %v", err)
		}
		ship := partners.Partnership{ID: "p1", UserA: "u2", UserB: "u5", CreatedAt: core.FromMillis(3)} // before 00034's expiry
		if err := repo.Pair(ctx, ship.Users(), func(st partners.Pairing) (partners.PairingChange, error) {
			return partners.DecideLink(st, "abcd", ship, ship.CreatedAt)
		}); err != nil {
			t.Fatalf("link with a keyless code: %v", err)
		}
	})
}

func gooseProvider(t *testing.T, db *sqlstore.DB) *goose.Provider {
	t.Helper()
	dialect := goose.DialectMySQL
	if db.Dialect == sqlstore.SQLite {
		dialect = goose.DialectSQLite3
	}
	sub, err := migrations.For(string(db.Dialect))
	if err != nil {
		t.Fatal(err)
	}
	p, err := goose.NewProvider(dialect, db.DB.DB, sub)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMigration00023SchedulesThePairedUsers: users paired before the daily
// reminder existed are due at once (the job's first pass computes their
// next reminder), unpaired ones are not scheduled, and stored settings get
// the default reminder time.
func TestMigration00023SchedulesThePairedUsers(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		ctx := context.Background()
		db := newDB(t)
		p := gooseProvider(t, db)
		if _, err := p.DownTo(ctx, 22); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{
			"INSERT INTO partnerships (id, user_a, user_b, created_at) VALUES ('p1', 'ann', 'bob', 1)",
			"INSERT INTO partnership_members (user_id, partnership_id, partner_id) VALUES ('ann', 'p1', 'bob'), ('bob', 'p1', 'ann')",
			"INSERT INTO notification_settings (user_id, pause_all, daily_reminders, mood_updates, habits_reminder, " +
				"events_notification, games_notification, partner_activity, system_updates, resume, updated_at) " +
				"VALUES ('cat', 0, 1, 1, 1, 1, 1, 1, 1, '', 1)",
		} {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := p.Up(ctx); err != nil {
			t.Fatal(err)
		}
		due, err := sqlstore.NewDailyReminderRepo(db).DueReminders(ctx, time.UnixMilli(0), 10)
		if err != nil || len(due) != 2 || due[0].UserID != "ann" || due[1].UserID != "bob" || due[0].At.UnixMilli() != 0 {
			t.Fatalf("scheduled %+v %v", due, err)
		}
		st, err := sqlstore.NewNotificationRepo(db).Settings(ctx, "cat")
		if err != nil || st.ReminderTime != notifications.DefaultReminderTime {
			t.Fatalf("settings %+v %v", st, err)
		}
	})
}

// TestMigration00034GivesStoredCodesAWeek: connection codes stored before
// expiry existed link for 7 days from their creation, like new codes under
// the default TTL, so old ones (weak codes the earlier rule let in among
// them) stop linking at once; the purge then finds them by the new index.
func TestMigration00034GivesStoredCodesAWeek(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		ctx := context.Background()
		db := newDB(t)
		p := gooseProvider(t, db)
		if _, err := p.DownTo(ctx, 33); err != nil {
			t.Fatal(err)
		}
		created := time.Date(2025, 3, 1, 9, 30, 0, 0, time.UTC)
		for _, row := range []struct {
			user, code string
			at         time.Time
		}{{"u1", "password", created}, {"u2", "fresh-code", created.Add(6 * 24 * time.Hour)}} {
			if _, err := db.Exec("INSERT INTO partner_connections (user_id, id, code, created_at, code_key) VALUES (?, ?, ?, ?, ?)",
				row.user, "c-"+row.user, row.code, row.at.UnixMilli(), row.code); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := p.Up(ctx); err != nil {
			t.Fatal(err)
		}
		repo := sqlstore.NewPartnerRepo(db)
		for user, want := range map[string]time.Time{"u1": created.Add(partners.DefaultConnectionCodeTTL),
			"u2": created.Add(6*24*time.Hour + partners.DefaultConnectionCodeTTL)} {
			c, err := repo.ConnectionOf(ctx, user)
			if err != nil || !c.ExpiresAt.Equal(want) {
				t.Fatalf("%s: %+v %v, want expiry %v", user, c, err, want)
			}
		}
		n, err := repo.PurgeExpiredConnections(ctx, created.Add(8*24*time.Hour))
		if err != nil || n != 1 {
			t.Fatalf("purge: %d %v", n, err)
		}
		if _, err := repo.ConnectionByCode(ctx, "password"); !core.IsKind(err, core.KindNotFound) {
			t.Fatalf("the old weak code survived the purge: %v", err)
		}
	})
}
