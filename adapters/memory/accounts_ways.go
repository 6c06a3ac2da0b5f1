package memory

import (
	"context"

	"tandem/modules/accounts"
)

// The ways in to an account span the accounts' maps and the passkeys':
// AccountRepo holds its mutex, then the PasskeyRepo's (never the reverse),
// so each ending or removal is one step, as its SQL transaction is.

// NewAccountRepoWith is an AccountRepo that ends and removes the passkeys
// p keeps with the account's other ways in.
func NewAccountRepoWith(p *PasskeyRepo) *AccountRepo {
	r := NewAccountRepo()
	r.passkeys = p
	return r
}

func (r *AccountRepo) EndWaysIn(_ context.Context, userID string) (accounts.Removed, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.accounts.has(userID) {
		return accounts.Removed{}, r.accounts.notFound()
	}
	out, _ := r.endWaysInLocked(userID, identityKey{})
	return out, nil
}

// endWaysInLocked ends every way in of the user; the identities' grants
// are queued for revocation, but keep's, returned (it is linked again).
func (r *AccountRepo) endWaysInLocked(userID string, keep identityKey) (accounts.Removed, string) {
	out := accounts.Removed{Sessions: r.revokeLocked(userID)}
	var kept string
	for _, id := range r.identitiesLocked(userID) {
		if g := r.retireGrantLocked(id, keep); g != "" {
			kept = g
		}
		r.identities.delete(identityKey{id.Provider, id.Subject})
		out.Providers = append(out.Providers, id.Provider)
	}
	if r.passkeys != nil {
		out.Passkeys = r.passkeys.dropUser(userID)
	}
	return out, kept
}

func (r *AccountRepo) RemoveWayIn(_ context.Context, userID string, w accounts.WayIn, decide accounts.WayDecision) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	a, err := r.accounts.find(userID)
	if err != nil {
		return err
	}
	ids := r.identitiesLocked(userID)
	var keys []string
	if r.passkeys != nil {
		keys = r.passkeys.idsOf(userID)
	}
	if err := decide(a, ids, keys); err != nil {
		return err
	}
	if w.Passkey != "" {
		r.passkeys.drop(w.Passkey)
		return nil
	}
	for _, id := range ids {
		if id.Provider == w.Provider {
			r.retireGrantLocked(id, identityKey{})
			r.identities.delete(identityKey{id.Provider, id.Subject})
		}
	}
	return nil
}

func (r *AccountRepo) QueueMail(_ context.Context, m accounts.OutboxMail) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.mails.put(m.ID, m)
	return nil
}

// idsOf lists the user's passkey ids.
func (r *PasskeyRepo) idsOf(userID string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for id, p := range r.byID.rows {
		if p.UserID == userID {
			out = append(out, id)
		}
	}
	return out
}

func (r *PasskeyRepo) drop(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.byID.delete(id)
}

// dropUser removes the user's passkeys and begun ceremonies, and counts
// the passkeys.
func (r *PasskeyRepo) dropUser(userID string) int {
	n := len(r.idsOf(userID))
	_ = r.DeleteByUser(context.Background(), userID)
	return n
}
