package sqlstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"tandem/adapters/sqlstore"
	"tandem/modules/accounts"
)

// TestPurgesAreBoundedPerRun: a purge deletes in batches of a set size and
// stops after a set number of them; the next run goes on where it
// stopped, and what has not expired stays. Both a one-column key (tokens)
// and a two-column key (throttle counters) are deleted by their keys.
func TestPurgesAreBoundedPerRun(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		ctx := context.Background()
		db := newDB(t)
		sqlstore.SetPurgeBatches(db, 2, 2)
		now := time.UnixMilli(1_800_000_000_000)
		throttle := sqlstore.NewThrottleRepo(db)
		accts := sqlstore.NewAccountRepo(db)
		if err := accts.Create(ctx, accounts.Account{ID: "u1", Email: "u1@x.io", PasswordHash: "h", CreatedAt: now, UpdatedAt: now}); err != nil {
			t.Fatal(err)
		}
		for i := range 5 {
			if _, err := throttle.Add(ctx, fmt.Sprintf("k%d", i), now, now.Add(-time.Minute)); err != nil {
				t.Fatal(err)
			}
			if _, err := accts.CreateToken(ctx, accounts.Token{ID: fmt.Sprintf("t%d", i), Hash: fmt.Sprintf("old%d", i), UserID: "u1",
				CreatedAt: now.Add(-time.Hour), ExpiresAt: now.Add(-time.Minute)}, keepAll); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := throttle.Add(ctx, "live", now, now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if _, err := accts.CreateToken(ctx, accounts.Token{ID: "live", Hash: "live", UserID: "u1", CreatedAt: now,
			ExpiresAt: now.Add(time.Hour)}, keepAll); err != nil {
			t.Fatal(err)
		}
		for run, want := range []int{4, 1, 0} { // two batches of two, then the rest, then nothing
			if n, err := throttle.Purge(ctx, now); err != nil || n != want {
				t.Fatalf("throttle run %d: %d, %v; want %d", run, n, err, want)
			}
			if n, err := accts.Purge(ctx, now); err != nil || n != want {
				t.Fatalf("accounts run %d: %d, %v; want %d", run, n, err, want)
			}
		}
		if n, err := throttle.Count(ctx, "live", now); err != nil || n != 1 {
			t.Fatalf("the live counter: %d, %v", n, err)
		}
		if _, err := accts.Session(ctx, "live"); err != nil {
			t.Fatalf("the live token: %v", err)
		}
	})
}

// keepAll is a CreateToken decide that revokes nothing.
func keepAll([]accounts.Token) []string { return nil }
