package memory

import (
	"bytes"
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"tandem/core"
	"tandem/modules/passkeys"
)

var _ passkeys.Repository = (*PasskeyRepo)(nil)

// PasskeyRepo keeps passkeys and challenges under one mutex, which makes
// each take and use one step.
type PasskeyRepo struct {
	mu         sync.Mutex
	byID       map[string]passkeys.Passkey
	challenges map[string]passkeys.Challenge
}

func NewPasskeyRepo() *PasskeyRepo {
	return &PasskeyRepo{byID: map[string]passkeys.Passkey{}, challenges: map[string]passkeys.Challenge{}}
}

func clonePasskey(p passkeys.Passkey) passkeys.Passkey {
	p.CredentialID, p.PublicKey, p.Details = bytes.Clone(p.CredentialID), bytes.Clone(p.PublicKey), bytes.Clone(p.Details)
	return p
}

func (r *PasskeyRepo) Create(_ context.Context, p passkeys.Passkey, max int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, o := range r.byID {
		if bytes.Equal(o.CredentialID, p.CredentialID) || o.ID == p.ID {
			return passkeys.Exists()
		}
		if o.UserID == p.UserID {
			n++
		}
	}
	if n >= max {
		return passkeys.TooMany()
	}
	r.byID[p.ID] = clonePasskey(p)
	return nil
}

func (r *PasskeyRepo) List(_ context.Context, userID string) ([]passkeys.Passkey, error) {
	r.mu.Lock()
	out := []passkeys.Passkey{}
	for _, p := range r.byID {
		if p.UserID == userID {
			out = append(out, clonePasskey(p))
		}
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b passkeys.Passkey) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

func (r *PasskeyRepo) ByCredential(_ context.Context, credentialID []byte) (passkeys.Passkey, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range r.byID {
		if bytes.Equal(p.CredentialID, credentialID) {
			return clonePasskey(p), nil
		}
	}
	return passkeys.Passkey{}, passkeys.NotFound()
}

func (r *PasskeyRepo) RecordUse(_ context.Context, id string, decide passkeys.UseDecision) (passkeys.Passkey, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.byID[id]
	if !ok {
		return passkeys.Passkey{}, passkeys.NotFound()
	}
	p, err := decide(clonePasskey(p))
	if err != nil {
		return passkeys.Passkey{}, err
	}
	r.byID[id] = clonePasskey(p)
	return p, nil
}

func (r *PasskeyRepo) Delete(_ context.Context, userID, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.byID[id]; !ok || p.UserID != userID {
		return passkeys.NotFound()
	}
	delete(r.byID, id)
	return nil
}

func (r *PasskeyRepo) DeleteByUser(_ context.Context, userID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, p := range r.byID {
		if p.UserID == userID {
			delete(r.byID, id)
		}
	}
	for id, c := range r.challenges {
		if c.UserID == userID {
			delete(r.challenges, id)
		}
	}
	return nil
}

func (r *PasskeyRepo) CreateChallenge(_ context.Context, c passkeys.Challenge) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.challenges[c.ID]; ok {
		return core.Conflict("conflict", "memory.alreadyExists", "already exists")
	}
	c.Session = bytes.Clone(c.Session)
	r.challenges[c.ID] = c
	return nil
}

func (r *PasskeyRepo) TakeChallenge(_ context.Context, id string, decide passkeys.ChallengeDecision) (passkeys.Challenge, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.challenges[id]
	if !ok {
		return passkeys.Challenge{}, passkeys.NoChallenge()
	}
	c.Session = bytes.Clone(c.Session)
	spend, err := decide(c)
	if spend {
		delete(r.challenges, id)
	}
	if err != nil {
		return passkeys.Challenge{}, err
	}
	return c, nil
}

func (r *PasskeyRepo) PurgeChallenges(_ context.Context, now time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, c := range r.challenges {
		if !now.Before(c.ExpiresAt) {
			delete(r.challenges, id)
		}
	}
	return nil
}
