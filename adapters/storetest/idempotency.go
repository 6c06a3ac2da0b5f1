package storetest

import (
	"sync"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/idempotency"
)

// IdempotencyRepository checks an idempotency.Repository implementation.
func IdempotencyRepository(t *testing.T, newRepo func(t *testing.T) idempotency.Repository) {
	s := idempotencySuite{newRepo: newRepo, lease: time.Minute}
	t.Run("a key is claimed once; the second claim sees the running one", s.claimOnce)
	t.Run("keys are per user", s.keysPerUser)
	t.Run("finish stores the answer, a later claim returns it", s.finish)
	t.Run("an answer not kept comes back without a body", s.answerNotKept)
	t.Run("release frees a running claim, never a done one or another's", s.release)
	t.Run("finish of a claim taken over is not found", s.finishTakenOver)
	t.Run("an expired answer is replaced by a new claim", s.expiredAnswer)
	t.Run("purge drops expired records only; delete user drops the user's", s.purgeAndDeleteUser)
	t.Run("concurrent claims of one key: exactly one wins", s.concurrentClaims)
}

// idempotencySuite holds IdempotencyRepository's helpers and subtests.
type idempotencySuite struct {
	newRepo func(t *testing.T) idempotency.Repository
	lease   time.Duration
}

func (s idempotencySuite) running(user, hash, claim string) idempotency.Record {
	return idempotency.Record{UserID: user, KeyHash: hash, ClaimID: claim, State: idempotency.Running,
		CreatedAt: now, ExpiresAt: now.Add(s.lease)}
}

func (idempotencySuite) done(r idempotency.Record, body string) idempotency.Record {
	r.State, r.Fingerprint, r.ExpiresAt = idempotency.Done, "fp-"+r.ClaimID, now.Add(idempotency.TTL)
	r.Answer = idempotency.Answer{Status: 201, ContentType: "application/json", Body: []byte(body)}
	return r
}

func (idempotencySuite) claim(t *testing.T, r idempotency.Repository, rec idempotency.Record, at time.Time) (idempotency.Record, bool) {
	t.Helper()
	old, ok, err := r.Claim(ctx, rec, at)
	if err != nil {
		t.Fatal(err)
	}
	return old, ok
}

func (s idempotencySuite) claimOnce(t *testing.T) {
	r := s.newRepo(t)
	if _, ok := s.claim(t, r, s.running("u1", "k1", "c1"), now); !ok {
		t.Fatal("first claim refused")
	}
	old, ok := s.claim(t, r, s.running("u1", "k1", "c2"), now)
	if ok || old.State != idempotency.Running || old.ClaimID != "c1" {
		t.Fatalf("second claim: ok=%v old=%+v", ok, old)
	}
}

func (s idempotencySuite) keysPerUser(t *testing.T) {
	r := s.newRepo(t)
	s.claim(t, r, s.running("u1", "k1", "c1"), now)
	if _, ok := s.claim(t, r, s.running("u2", "k1", "c2"), now); !ok {
		t.Fatal("another user's same key was refused")
	}
}

func (s idempotencySuite) finish(t *testing.T) {
	r := s.newRepo(t)
	rec := s.running("u1", "k1", "c1")
	s.claim(t, r, rec, now)
	body := string(make([]byte, idempotency.MaxAnswerBytes)) // the largest kept answer, bytes 0 included
	if err := r.Finish(ctx, s.done(rec, body)); err != nil {
		t.Fatal(err)
	}
	old, ok := s.claim(t, r, s.running("u1", "k1", "c2"), now.Add(time.Hour))
	if ok || old.State != idempotency.Done || old.Fingerprint != "fp-c1" || old.Answer.Status != 201 ||
		old.Answer.ContentType != "application/json" || string(old.Answer.Body) != body {
		t.Fatalf("after finish: ok=%v state=%s fp=%s status=%d type=%s len=%d", ok, old.State, old.Fingerprint,
			old.Answer.Status, old.Answer.ContentType, len(old.Answer.Body))
	}
}

func (s idempotencySuite) answerNotKept(t *testing.T) {
	r := s.newRepo(t)
	rec := s.running("u1", "k1", "c1")
	s.claim(t, r, rec, now)
	d := s.done(rec, "")
	d.Answer = idempotency.Answer{}
	if err := r.Finish(ctx, d); err != nil {
		t.Fatal(err)
	}
	old, ok := s.claim(t, r, s.running("u1", "k1", "c2"), now)
	if ok || old.State != idempotency.Done || old.Answer.Status != 0 || len(old.Answer.Body) != 0 {
		t.Fatalf("ok=%v old=%+v", ok, old)
	}
}

func (s idempotencySuite) release(t *testing.T) {
	r := s.newRepo(t)
	rec := s.running("u1", "k1", "c1")
	s.claim(t, r, rec, now)
	if err := r.Release(ctx, "u1", "k1", "other"); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.claim(t, r, s.running("u1", "k1", "c2"), now); ok {
		t.Fatal("another claim's release freed the key")
	}
	if err := r.Release(ctx, "u1", "k1", "c1"); err != nil {
		t.Fatal(err)
	}
	rec2 := s.running("u1", "k1", "c2")
	if _, ok := s.claim(t, r, rec2, now); !ok {
		t.Fatal("released key not claimable")
	}
	if err := r.Finish(ctx, s.done(rec2, `{}`)); err != nil {
		t.Fatal(err)
	}
	if err := r.Release(ctx, "u1", "k1", "c2"); err != nil {
		t.Fatal(err)
	}
	if old, ok := s.claim(t, r, s.running("u1", "k1", "c3"), now); ok || old.State != idempotency.Done {
		t.Fatalf("release removed a done record: ok=%v", ok)
	}
}

func (s idempotencySuite) finishTakenOver(t *testing.T) {
	r := s.newRepo(t)
	rec := s.running("u1", "k1", "c1")
	s.claim(t, r, rec, now)
	// The lease ends; another request takes the key over.
	if _, ok := s.claim(t, r, s.running("u1", "k1", "c2"), now.Add(s.lease)); !ok {
		t.Fatal("expired claim not taken over")
	}
	if err := r.Finish(ctx, s.done(rec, `{}`)); !core.IsKind(err, core.KindNotFound) {
		t.Fatalf("finish of a lost claim: %v", err)
	}
	if err := r.Release(ctx, "u1", "k1", "absent"); err != nil {
		t.Fatal(err)
	}
}

func (s idempotencySuite) expiredAnswer(t *testing.T) {
	r := s.newRepo(t)
	rec := s.running("u1", "k1", "c1")
	s.claim(t, r, rec, now)
	if err := r.Finish(ctx, s.done(rec, `{}`)); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.claim(t, r, s.running("u1", "k1", "c2"), now.Add(idempotency.TTL-time.Millisecond)); ok {
		t.Fatal("claimed before the answer expired")
	}
	if _, ok := s.claim(t, r, s.running("u1", "k1", "c2"), now.Add(idempotency.TTL)); !ok {
		t.Fatal("not claimable once expired")
	}
}

func (s idempotencySuite) purgeAndDeleteUser(t *testing.T) {
	r := s.newRepo(t)
	a := s.running("u1", "a", "c1")
	s.claim(t, r, a, now)
	if err := r.Finish(ctx, s.done(a, `{}`)); err != nil {
		t.Fatal(err)
	}
	s.claim(t, r, s.running("u1", "b", "c2"), now) // running: expires after the lease
	s.claim(t, r, s.running("u2", "c", "c3"), now)
	n, err := r.Purge(ctx, now.Add(time.Hour))
	if err != nil || n != 2 {
		t.Fatalf("purge: n=%d err=%v", n, err)
	}
	if _, ok := s.claim(t, r, s.running("u1", "a", "c4"), now.Add(time.Hour)); ok {
		t.Fatal("purge dropped a live answer")
	}
	if err := r.DeleteUser(ctx, "u1"); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.claim(t, r, s.running("u1", "a", "c5"), now.Add(time.Hour)); !ok {
		t.Fatal("delete user kept the user's key")
	}
}

func (s idempotencySuite) concurrentClaims(t *testing.T) {
	r := s.newRepo(t)
	const n = 8
	var wg sync.WaitGroup
	wins := make(chan string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := string(rune('a' + i))
			_, ok, err := r.Claim(ctx, s.running("u1", "k1", id), now)
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
}
