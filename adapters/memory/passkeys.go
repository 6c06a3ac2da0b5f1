package memory

import (
	"bytes"
	"cmp"
	"context"
	"sync"
	"time"

	"tandem/modules/passkeys"
)

var _ passkeys.Repository = (*PasskeyRepo)(nil)

// PasskeyRepo keeps passkeys and challenges under one mutex, which makes
// each take and use one step.
type PasskeyRepo struct {
	mu         sync.Mutex
	byID       table[string, passkeys.Passkey]
	challenges table[string, passkeys.Challenge]
}

func NewPasskeyRepo() *PasskeyRepo {
	return &PasskeyRepo{byID: newTable[string, passkeys.Passkey](nil, passkeys.NotFound).cloned(clonePasskey),
		challenges: newTable[string, passkeys.Challenge](conflict("memory.alreadyExists", "already exists"),
			passkeys.NoChallenge).cloned(cloneChallenge)}
}

func cloneChallenge(c passkeys.Challenge) passkeys.Challenge {
	c.Session = bytes.Clone(c.Session)
	return c
}

func clonePasskey(p passkeys.Passkey) passkeys.Passkey {
	p.CredentialID, p.PublicKey, p.Details = bytes.Clone(p.CredentialID), bytes.Clone(p.PublicKey), bytes.Clone(p.Details)
	return p
}

func passkeyOf(userID string) func(passkeys.Passkey) bool {
	return func(p passkeys.Passkey) bool { return p.UserID == userID }
}

func (r *PasskeyRepo) Create(_ context.Context, p passkeys.Passkey, max int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, _, taken := r.byID.pick(func(o passkeys.Passkey) bool { return bytes.Equal(o.CredentialID, p.CredentialID) }); taken || r.byID.has(p.ID) {
		return passkeys.Exists()
	}
	if r.byID.count(passkeyOf(p.UserID)) >= max {
		return passkeys.TooMany()
	}
	r.byID.put(p.ID, p)
	return nil
}

func (r *PasskeyRepo) List(_ context.Context, userID string) ([]passkeys.Passkey, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byID.scan(passkeyOf(userID), func(a, b passkeys.Passkey) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	}), nil
}

func (r *PasskeyRepo) ByCredential(_ context.Context, credentialID []byte) (passkeys.Passkey, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, p, ok := r.byID.pick(func(p passkeys.Passkey) bool { return bytes.Equal(p.CredentialID, credentialID) }); ok {
		return p, nil
	}
	return passkeys.Passkey{}, passkeys.NotFound()
}

func (r *PasskeyRepo) RecordUse(_ context.Context, id string, decide passkeys.UseDecision) (passkeys.Passkey, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, err := r.byID.find(id)
	if err != nil {
		return passkeys.Passkey{}, err
	}
	p, err = decide(p)
	if err != nil {
		return passkeys.Passkey{}, err
	}
	r.byID.put(id, p)
	return p, nil
}

func (r *PasskeyRepo) Delete(_ context.Context, userID, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.byID.findIf(id, passkeyOf(userID)); err != nil {
		return err
	}
	r.byID.delete(id)
	return nil
}

func (r *PasskeyRepo) DeleteByUser(_ context.Context, userID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.byID.deleteWhere(func(_ string, p passkeys.Passkey) bool { return p.UserID == userID })
	r.challenges.deleteWhere(func(_ string, c passkeys.Challenge) bool { return c.UserID == userID })
	return nil
}

func (r *PasskeyRepo) CreateChallenge(_ context.Context, c passkeys.Challenge) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.challenges.insert(c.ID, c)
}

func (r *PasskeyRepo) TakeChallenge(_ context.Context, id string, decide passkeys.ChallengeDecision) (passkeys.Challenge, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, err := r.challenges.find(id)
	if err != nil {
		return passkeys.Challenge{}, err
	}
	spend, err := decide(c)
	if spend {
		r.challenges.delete(id)
	}
	if err != nil {
		return passkeys.Challenge{}, err
	}
	return c, nil
}

func (r *PasskeyRepo) PurgeChallenges(_ context.Context, now time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.challenges.deleteWhere(func(_ string, c passkeys.Challenge) bool { return !now.Before(c.ExpiresAt) })
	return nil
}
