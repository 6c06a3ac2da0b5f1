package idempotency

import (
	"context"
	"time"

	"tandem/core"
)

// Settings: Lease is how long a running claim holds its key. A process that
// dies mid-request leaves its claim running; after the lease the key may be
// claimed again. It must outlast the longest request (the request timeout).
// Budget bounds the new keys of one user (zero: DefaultBudget).
type Settings struct {
	Lease  time.Duration
	Budget core.WriteBudget
}

// Service applies the rules of the Idempotency-Key header; the HTTP adapter
// calls Begin before a create runs and Finish or Release after.
type Service struct {
	repo    Repository
	limiter core.Limiter
	clock   core.Clock
	ids     core.IDs
	lease   time.Duration
	budget  core.WriteBudget
}

func NewService(repo Repository, limiter core.Limiter, clock core.Clock, ids core.IDs, s Settings) *Service {
	return &Service{repo: repo, limiter: limiter, clock: clock, ids: ids, lease: s.Lease, budget: s.Budget.Or(DefaultBudget)}
}

// Claim is a request that holds its key and must end with Finish or Release.
type Claim struct {
	rec     Record
	pending *Pending
}

// Pending is what the request's context carries to the store, so that its
// create commits with the key's mark (WithPending).
func (c *Claim) Pending() *Pending { return c.pending }

// Begin validates key and either claims it (the request runs: a Claim) or
// returns the stored answer of the same request to replay. fingerprint is
// asked for only when a completed record must be compared: an upload hashes
// its body while the handler reads it, so its fingerprint comes at Finish.
// When storing the claim failed the Claim comes with the error: whether it
// was stored is not known, and the caller releases it (Release) when it can.
// Refusals: 400 invalid_request (bad key), 409 idempotency_in_progress,
// 422 idempotency_key_reused, 409 idempotency_answer_not_kept, and 429
// rate_limited with Retry-After for a new key beyond the user's budget
// (NewKeysPerMinute, NewKeysPerDay): that claim is released, so nothing is
// stored, and the request does not run. A key already stored is replayed
// (or refused as above) whatever the budget, so a retry always gets its
// answer.
func (s *Service) Begin(ctx context.Context, userID, key string, fingerprint func() (string, error)) (*Claim, *Answer, error) {
	if err := ValidKey(key); err != nil {
		return nil, nil, err
	}
	now := s.clock.Now()
	r := Record{UserID: userID, KeyHash: HashKey(key), ClaimID: s.ids.New(), State: Running,
		CreatedAt: now, ExpiresAt: now.Add(s.lease)}
	old, ok, err := s.repo.Claim(ctx, r, now)
	switch {
	case err != nil:
		// The claim may yet commit (a database that hung, a request cut by
		// the breaker): the Claim comes with the error, for the caller to
		// release once it can.
		return &Claim{rec: r}, nil, err
	case ok:
		c := &Claim{rec: r, pending: &Pending{UserID: userID, KeyHash: r.KeyHash, ClaimID: r.ClaimID,
			KeepUntil: now.Add(TTL)}}
		if err := s.budget.Spend(ctx, s.limiter, userID); err != nil {
			if rerr := s.Release(ctx, c); rerr != nil {
				return nil, nil, rerr
			}
			return nil, nil, err
		}
		return c, nil, nil
	case old.State == Committed && now.Before(old.CreatedAt.Add(s.lease)):
		return nil, nil, errInProgress() // written; its request may still store the answer
	case old.State == Committed: // it ran; its answer was lost with its process or its database
		return nil, nil, errNotKept()
	case old.State != Done:
		return nil, nil, errInProgress()
	}
	fp, err := fingerprint()
	if err != nil {
		return nil, nil, err
	}
	switch {
	case fp != old.Fingerprint:
		return nil, nil, errKeyReused()
	case old.Answer.Status == 0:
		return nil, nil, errNotKept()
	}
	a := old.Answer
	return nil, &a, nil
}

// Finish ends a claimed request with its answer: kept for TTL and replayed
// to a retry, or released (5xx, 429, 408: the request may run again), or,
// when too large to keep, remembered without its answer.
func (s *Service) Finish(ctx context.Context, c *Claim, fingerprint string, a Answer) error {
	keep, release := Kept(a)
	if release {
		return s.Release(ctx, c)
	}
	r := c.rec
	r.State, r.Fingerprint, r.ExpiresAt = Done, fingerprint, s.clock.Now().Add(TTL)
	if keep {
		r.Answer = Answer{Status: a.Status, ContentType: a.ContentType, Body: append([]byte{}, a.Body...)}
	}
	return s.repo.Finish(ctx, r)
}

// Lease is how long a running claim holds its key unless renewed.
func (s *Service) Lease() time.Duration { return s.lease }

// DefaultLease: a running claim is renewed every third of it while its
// request runs (Renew), so a request that is gone frees its key within it.
const DefaultLease = 10 * time.Second

// Renew extends a running claim's lease from now: its request still runs.
func (s *Service) Renew(ctx context.Context, c *Claim) error {
	return s.repo.Renew(ctx, c.rec.UserID, c.rec.KeyHash, c.rec.ClaimID, s.clock.Now().Add(s.lease))
}

// Release frees a claimed request's key: it failed before answering.
func (s *Service) Release(ctx context.Context, c *Claim) error {
	return s.repo.Release(ctx, c.rec.UserID, c.rec.KeyHash, c.rec.ClaimID)
}

// Purge drops expired keys; bootstrap runs it periodically.
func (s *Service) Purge(ctx context.Context) (int, error) {
	return s.repo.Purge(ctx, s.clock.Now())
}

// Listener forgets a deleted account's keys (their answers hold its data).
func (s *Service) Listener() core.Listener {
	return core.Listener{Name: "idempotency", Handle: func(ctx context.Context, e core.Event) error {
		if ev, ok := e.(core.AccountDeleted); ok {
			return s.repo.DeleteUser(ctx, ev.UserID)
		}
		return nil
	}}
}
