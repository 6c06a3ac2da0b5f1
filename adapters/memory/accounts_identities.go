package memory

import (
	"context"
	"slices"
	"strings"
	"time"

	"tandem/core"
	"tandem/modules/accounts"
)

type identityKey struct{ provider, subject string }

// SignIn holds the mutex for the whole decision, as the SQL transaction
// holds its row locks.
func (r *AccountRepo) SignIn(_ context.Context, provider, subject, email string, decide accounts.SignInDecision) (accounts.SignInUpdate, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var st accounts.SignInState
	if id, ok := r.identities[identityKey{provider, subject}]; ok {
		st.Identity = &id
		if a, ok := r.byID[id.UserID]; ok {
			st.Linked = &a
		}
	}
	if email != "" {
		if uid, ok := r.byEmail[email]; ok {
			a := r.byID[uid]
			st.ByEmail = &a
		}
	}
	u, err := decide(st)
	if err != nil {
		return accounts.SignInUpdate{}, err
	}
	a := u.Account
	grant := u.RefreshToken
	if u.Create {
		if _, taken := r.byEmail[a.Email]; taken {
			return accounts.SignInUpdate{}, core.Conflict("conflict", "memory.mailTaken", "e-mail taken")
		}
		r.byID[a.ID] = a
		r.byEmail[a.Email] = a.ID
	}
	if u.TakeOver {
		s := r.byID[a.ID]
		s.Verified, s.PasswordHash, s.UpdatedAt = true, "", a.UpdatedAt
		r.byID[a.ID] = s
		delete(r.codes, codeKey{a.ID, accounts.PurposeVerify})
		keep := identityKey{}
		if st.Identity != nil {
			keep = identityKey{provider, subject}
		}
		var kept string
		u.Removed, kept = r.endWaysInLocked(a.ID, keep)
		if grant == "" {
			grant = kept
		}
	}
	k := identityKey{provider, subject}
	if u.Link != nil {
		k = identityKey{u.Link.Provider, u.Link.Subject}
		if _, taken := r.identities[k]; taken {
			return accounts.SignInUpdate{}, core.Conflict("conflict", "memory.identityTaken", "identity taken")
		}
		r.identities[k] = *u.Link
	}
	if _, ok := r.identities[k]; ok && grant != "" {
		r.grants[k] = grant
	}
	return u, nil
}

func (r *AccountRepo) identitiesLocked(userID string) []accounts.Identity {
	out := []accounts.Identity{}
	for _, id := range r.identities {
		if id.UserID == userID {
			out = append(out, id)
		}
	}
	slices.SortFunc(out, func(a, b accounts.Identity) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.Provider, b.Provider)
	})
	return out
}

func (r *AccountRepo) Identities(_ context.Context, userID string) ([]accounts.Identity, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.identitiesLocked(userID), nil
}

func (r *AccountRepo) SpendIDToken(_ context.Context, tokenHash string, expires time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, used := r.idTokens[tokenHash]; used {
		return core.Conflict("conflict", "memory.alreadyExists", "already exists")
	}
	r.idTokens[tokenHash] = expires
	return nil
}
