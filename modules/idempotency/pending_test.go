package idempotency_test

import (
	"context"
	"testing"
	"time"

	"tandem/adapters/memory"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/idempotency"
)

// A key whose create committed but whose answer was never stored (its
// process died, or lost its database, after the commit) is never run
// again: a retry is 409 idempotency_answer_not_kept, after the lease too;
// a running key is released only while running.
func TestAWrittenKeyNeverRunsAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := coretest.NewClock(time.Time{})
	repo := memory.NewIdempotencyRepo()
	svc := idempotency.NewService(repo, limiter(clock), clock, &coretest.SeqIDs{}, idempotency.Settings{Lease: time.Minute})
	fp := func() (string, error) { return "fp", nil }
	c, replay, err := svc.Begin(ctx, "u1", "k1", fp)
	if err != nil || replay != nil || c == nil {
		t.Fatalf("%v %v %v", c, replay, err)
	}
	p := c.Pending()
	if p == nil || p.UserID != "u1" || p.KeyHash != idempotency.HashKey("k1") || !p.KeepUntil.Equal(clock.Now().Add(idempotency.TTL)) {
		t.Fatalf("the pending claim %+v", p)
	}
	if idempotency.PendingFrom(idempotency.WithPending(ctx, p)) != p || idempotency.PendingFrom(idempotency.Unmarked(idempotency.WithPending(ctx, p))) != nil {
		t.Fatal("the context does not carry the claim as it should")
	}
	// The store marks it as a SQL store does in the create's transaction.
	if err := repo.Finish(ctx, idempotency.Record{UserID: "u1", KeyHash: p.KeyHash, ClaimID: p.ClaimID,
		State: idempotency.Committed, CreatedAt: clock.Now(), ExpiresAt: p.KeepUntil}); err != nil {
		t.Fatal(err)
	}
	p.MarkCommitted()
	if idempotency.PendingFrom(idempotency.WithPending(ctx, p)) != nil {
		t.Fatal("a marked claim is marked again")
	}
	if err := svc.Release(ctx, c); err != nil {
		t.Fatal(err)
	}
	_, _, err = svc.Begin(ctx, "u1", "k1", fp) // its request may still store the answer
	coretest.WantErr(t, err, core.KindConflict, idempotency.CodeInProgress)
	clock.Advance(2 * time.Minute) // past the lease: that request is gone
	_, _, err = svc.Begin(ctx, "u1", "k1", fp)
	coretest.WantErr(t, err, core.KindConflict, idempotency.CodeNotKept)
}

// A running claim holds its key while its request renews it, and frees it
// one lease after the renewals stop (its request is gone).
func TestARenewedClaimHoldsItsKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := coretest.NewClock(time.Time{})
	svc := idempotency.NewService(memory.NewIdempotencyRepo(), limiter(clock), clock, &coretest.SeqIDs{},
		idempotency.Settings{Lease: idempotency.DefaultLease})
	fp := func() (string, error) { return "fp", nil }
	c, _, err := svc.Begin(ctx, "u1", "k1", fp)
	if err != nil {
		t.Fatal(err)
	}
	for range 5 { // the request runs for 5 leases' worth of thirds
		clock.Advance(idempotency.DefaultLease / 3)
		if err := svc.Renew(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(idempotency.DefaultLease - time.Second)
	_, _, err = svc.Begin(ctx, "u1", "k1", fp)
	coretest.WantErr(t, err, core.KindConflict, idempotency.CodeInProgress)
	clock.Advance(2 * time.Second) // a lease since the last renewal: the request is gone
	if again, _, err := svc.Begin(ctx, "u1", "k1", fp); err != nil || again == nil {
		t.Fatalf("the key of a gone request: %v %v", again, err)
	}
}
