package sqlstore_test

import (
	"context"
	"testing"
	"time"

	"tandem/adapters/sqlstore"
	"tandem/core"
	"tandem/modules/idempotency"
	"tandem/modules/messages"
)

// A create that carries a claimed Idempotency-Key commits with the key's
// mark, in one transaction: after any fault a retry finds the answer, the
// mark (409 idempotency_answer_not_kept: never run twice) or nothing
// written. A claim released meanwhile refuses the write.
func TestACreateCommitsWithItsIdempotencyKey(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		db := newDB(t)
		keys, msgs := sqlstore.NewIdempotencyRepo(db), sqlstore.NewMessageRepo(db)
		ctx := context.Background()
		now := time.UnixMilli(1_700_000_000_000).UTC()
		claim := func(key string) *idempotency.Pending {
			rec := idempotency.Record{UserID: "u1", KeyHash: idempotency.HashKey(key), ClaimID: "c-" + key,
				State: idempotency.Running, CreatedAt: now, ExpiresAt: now.Add(time.Minute)}
			if _, ok, err := keys.Claim(ctx, rec, now); err != nil || !ok {
				t.Fatalf("claim %s: %v %v", key, ok, err)
			}
			return &idempotency.Pending{UserID: "u1", KeyHash: rec.KeyHash, ClaimID: rec.ClaimID, KeepUntil: now.Add(idempotency.TTL)}
		}
		state := func(key string) idempotency.Record {
			old, ok, err := keys.Claim(ctx, idempotency.Record{UserID: "u1", KeyHash: idempotency.HashKey(key), ClaimID: "probe",
				State: idempotency.Running, CreatedAt: now, ExpiresAt: now.Add(time.Minute)}, now)
			if err != nil || ok {
				t.Fatalf("the key %s is gone: %v %v", key, ok, err)
			}
			return old
		}
		msg := func(id string) messages.Message {
			return messages.Message{ID: id, Scope: "s1", AuthorID: "u1", Body: "hi", CreatedAt: now}
		}

		p := claim("k1")
		kctx := idempotency.WithPending(ctx, p)
		if err := msgs.Add(kctx, msg("m1")); err != nil {
			t.Fatal(err)
		}
		if got := state("k1"); got.State != idempotency.Committed || !got.ExpiresAt.Equal(p.KeepUntil) || !p.Marked() {
			t.Fatalf("after the create: %+v, marked %v", got, p.Marked())
		}
		if err := msgs.Add(kctx, msg("m2")); err != nil { // a later write of the request leaves the key alone
			t.Fatal(err)
		}

		failed := claim("k2")
		if err := msgs.Add(idempotency.WithPending(ctx, failed), msg("m1")); !core.IsKind(err, core.KindConflict) {
			t.Fatalf("a duplicate id: %v", err)
		}
		if got := state("k2"); got.State != idempotency.Running || failed.Marked() {
			t.Fatalf("a failed create marked its key: %+v", got)
		}

		renewed := claim("k4")
		if err := keys.Renew(ctx, "u1", renewed.KeyHash, renewed.ClaimID, now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if got := state("k4"); !got.ExpiresAt.Equal(now.Add(time.Hour)) || got.State != idempotency.Running {
			t.Fatalf("a renewed claim: %+v", got)
		}

		released := claim("k3")
		if err := keys.Release(ctx, "u1", released.KeyHash, released.ClaimID); err != nil {
			t.Fatal(err)
		}
		if err := msgs.Add(idempotency.WithPending(ctx, released), msg("m3")); !core.IsKind(err, core.KindUnavailable) {
			t.Fatalf("a create whose key was released: %v", err)
		}
		list, _, err := msgs.List(ctx, "s1", core.Page{Limit: 10})
		if err != nil || len(list) != 2 {
			t.Fatalf("stored %d messages (%v), want m1 and m2", len(list), err)
		}
		if err := keys.Finish(kctx, idempotency.Record{UserID: "u1", KeyHash: p.KeyHash, ClaimID: p.ClaimID, State: idempotency.Done,
			Answer: idempotency.Answer{Status: 200, Body: []byte("{}")}, ExpiresAt: now.Add(idempotency.TTL)}); err != nil {
			t.Fatalf("the answer of a committed key: %v", err)
		}
	})
}
