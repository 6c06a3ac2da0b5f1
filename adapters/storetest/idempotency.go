package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/idempotency"
)

// IdempotencyRepository checks an idempotency.Repository implementation.
func IdempotencyRepository(t *testing.T, newRepo func(t *testing.T) idempotency.Repository) {
	ctx := context.Background()
	now := time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	lease := time.Minute
	running := func(user, hash, claim string) idempotency.Record {
		return idempotency.Record{UserID: user, KeyHash: hash, ClaimID: claim, State: idempotency.Running,
			CreatedAt: now, ExpiresAt: now.Add(lease)}
	}
	done := func(r idempotency.Record, body string) idempotency.Record {
		r.State, r.Fingerprint, r.ExpiresAt = idempotency.Done, "fp-"+r.ClaimID, now.Add(idempotency.TTL)
		r.Answer = idempotency.Answer{Status: 201, ContentType: "application/json", Body: []byte(body)}
		return r
	}
	claim := func(t *testing.T, r idempotency.Repository, rec idempotency.Record, at time.Time) (idempotency.Record, bool) {
		t.Helper()
		old, ok, err := r.Claim(ctx, rec, at)
		if err != nil {
			t.Fatal(err)
		}
		return old, ok
	}

	t.Run("a key is claimed once; the second claim sees the running one", func(t *testing.T) {
		r := newRepo(t)
		if _, ok := claim(t, r, running("u1", "k1", "c1"), now); !ok {
			t.Fatal("first claim refused")
		}
		old, ok := claim(t, r, running("u1", "k1", "c2"), now)
		if ok || old.State != idempotency.Running || old.ClaimID != "c1" {
			t.Fatalf("second claim: ok=%v old=%+v", ok, old)
		}
	})

	t.Run("keys are per user", func(t *testing.T) {
		r := newRepo(t)
		claim(t, r, running("u1", "k1", "c1"), now)
		if _, ok := claim(t, r, running("u2", "k1", "c2"), now); !ok {
			t.Fatal("another user's same key was refused")
		}
	})

	t.Run("finish stores the answer, a later claim returns it", func(t *testing.T) {
		r := newRepo(t)
		rec := running("u1", "k1", "c1")
		claim(t, r, rec, now)
		body := string(make([]byte, idempotency.MaxAnswerBytes)) // the largest kept answer, bytes 0 included
		if err := r.Finish(ctx, done(rec, body)); err != nil {
			t.Fatal(err)
		}
		old, ok := claim(t, r, running("u1", "k1", "c2"), now.Add(time.Hour))
		if ok || old.State != idempotency.Done || old.Fingerprint != "fp-c1" || old.Answer.Status != 201 ||
			old.Answer.ContentType != "application/json" || string(old.Answer.Body) != body {
			t.Fatalf("after finish: ok=%v state=%s fp=%s status=%d type=%s len=%d", ok, old.State, old.Fingerprint,
				old.Answer.Status, old.Answer.ContentType, len(old.Answer.Body))
		}
	})

	t.Run("an answer not kept comes back without a body", func(t *testing.T) {
		r := newRepo(t)
		rec := running("u1", "k1", "c1")
		claim(t, r, rec, now)
		d := done(rec, "")
		d.Answer = idempotency.Answer{}
		if err := r.Finish(ctx, d); err != nil {
			t.Fatal(err)
		}
		old, ok := claim(t, r, running("u1", "k1", "c2"), now)
		if ok || old.State != idempotency.Done || old.Answer.Status != 0 || len(old.Answer.Body) != 0 {
			t.Fatalf("ok=%v old=%+v", ok, old)
		}
	})

	t.Run("release frees a running claim, never a done one or another's", func(t *testing.T) {
		r := newRepo(t)
		rec := running("u1", "k1", "c1")
		claim(t, r, rec, now)
		if err := r.Release(ctx, "u1", "k1", "other"); err != nil {
			t.Fatal(err)
		}
		if _, ok := claim(t, r, running("u1", "k1", "c2"), now); ok {
			t.Fatal("another claim's release freed the key")
		}
		if err := r.Release(ctx, "u1", "k1", "c1"); err != nil {
			t.Fatal(err)
		}
		rec2 := running("u1", "k1", "c2")
		if _, ok := claim(t, r, rec2, now); !ok {
			t.Fatal("released key not claimable")
		}
		if err := r.Finish(ctx, done(rec2, `{}`)); err != nil {
			t.Fatal(err)
		}
		if err := r.Release(ctx, "u1", "k1", "c2"); err != nil {
			t.Fatal(err)
		}
		if old, ok := claim(t, r, running("u1", "k1", "c3"), now); ok || old.State != idempotency.Done {
			t.Fatalf("release removed a done record: ok=%v", ok)
		}
	})

	t.Run("finish of a claim taken over is not found", func(t *testing.T) {
		r := newRepo(t)
		rec := running("u1", "k1", "c1")
		claim(t, r, rec, now)
		// The lease ends; another request takes the key over.
		if _, ok := claim(t, r, running("u1", "k1", "c2"), now.Add(lease)); !ok {
			t.Fatal("expired claim not taken over")
		}
		if err := r.Finish(ctx, done(rec, `{}`)); !core.IsKind(err, core.KindNotFound) {
			t.Fatalf("finish of a lost claim: %v", err)
		}
		if err := r.Release(ctx, "u1", "k1", "absent"); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("an expired answer is replaced by a new claim", func(t *testing.T) {
		r := newRepo(t)
		rec := running("u1", "k1", "c1")
		claim(t, r, rec, now)
		if err := r.Finish(ctx, done(rec, `{}`)); err != nil {
			t.Fatal(err)
		}
		if _, ok := claim(t, r, running("u1", "k1", "c2"), now.Add(idempotency.TTL-time.Millisecond)); ok {
			t.Fatal("claimed before the answer expired")
		}
		if _, ok := claim(t, r, running("u1", "k1", "c2"), now.Add(idempotency.TTL)); !ok {
			t.Fatal("not claimable once expired")
		}
	})

	t.Run("purge drops expired records only; delete user drops the user's", func(t *testing.T) {
		r := newRepo(t)
		a := running("u1", "a", "c1")
		claim(t, r, a, now)
		if err := r.Finish(ctx, done(a, `{}`)); err != nil {
			t.Fatal(err)
		}
		claim(t, r, running("u1", "b", "c2"), now) // running: expires after the lease
		claim(t, r, running("u2", "c", "c3"), now)
		n, err := r.Purge(ctx, now.Add(time.Hour))
		if err != nil || n != 2 {
			t.Fatalf("purge: n=%d err=%v", n, err)
		}
		if _, ok := claim(t, r, running("u1", "a", "c4"), now.Add(time.Hour)); ok {
			t.Fatal("purge dropped a live answer")
		}
		if err := r.DeleteUser(ctx, "u1"); err != nil {
			t.Fatal(err)
		}
		if _, ok := claim(t, r, running("u1", "a", "c5"), now.Add(time.Hour)); !ok {
			t.Fatal("delete user kept the user's key")
		}
	})

	t.Run("concurrent claims of one key: exactly one wins", func(t *testing.T) {
		r := newRepo(t)
		const n = 8
		var wg sync.WaitGroup
		wins := make(chan string, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				id := string(rune('a' + i))
				_, ok, err := r.Claim(ctx, running("u1", "k1", id), now)
				if err != nil {
					t.Error(err)
				}
				if ok {
					wins <- id
				}
			}()
		}
		wg.Wait()
		close(wins)
		if len(wins) != 1 {
			t.Fatalf("%d claims won", len(wins))
		}
	})
}
