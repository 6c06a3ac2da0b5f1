package memory

import (
	"cmp"
	"context"
	"strings"
	"time"

	"tandem/modules/accounts"
)

type identityKey struct{ provider, subject string }

// SignIn holds the mutex for the whole decision, as the SQL transaction
// holds its row locks.
func (r *AccountRepo) SignIn(_ context.Context, provider, subject, email string, decide accounts.SignInDecision) (accounts.SignInUpdate, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var st accounts.SignInState
	if id, ok := r.identities.get(identityKey{provider, subject}); ok {
		st.Identity = &id
		if a, ok := r.accounts.get(id.UserID); ok {
			st.Linked = &a
		}
	}
	if a, ok := r.accounts.lookup(email); ok && email != "" {
		st.ByEmail = &a
	}
	u, err := decide(st)
	if err != nil {
		return accounts.SignInUpdate{}, err
	}
	a := u.Account
	grant := u.RefreshToken
	if u.Create {
		if err := r.createLocked(a); err != nil {
			return accounts.SignInUpdate{}, err
		}
	}
	if u.TakeOver {
		s, _ := r.accounts.get(a.ID)
		s.Verified, s.PasswordHash, s.UpdatedAt = true, "", a.UpdatedAt
		r.accounts.put(a.ID, s)
		r.codes.delete(codeKey{a.ID, accounts.PurposeVerify})
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
		if err := r.identities.insert(k, *u.Link); err != nil {
			return accounts.SignInUpdate{}, err
		}
	}
	if r.identities.has(k) && grant != "" {
		r.grants[k] = grant
	}
	return u, nil
}

func (r *AccountRepo) identitiesLocked(userID string) []accounts.Identity {
	return r.identities.scan(func(id accounts.Identity) bool { return id.UserID == userID }, func(a, b accounts.Identity) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.Provider, b.Provider))
	})
}

func (r *AccountRepo) Identities(_ context.Context, userID string) ([]accounts.Identity, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.identitiesLocked(userID), nil
}

func (r *AccountRepo) SpendIDToken(_ context.Context, tokenHash string, expires time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.idTokens.insert(tokenHash, expires)
}
