package memory

import (
	"cmp"
	"context"

	"tandem/core"
	"tandem/modules/accounts"
)

// What administrators do to accounts from the console: the list, blocks,
// ending every session and a verification vouched for.

// newerAccount orders accounts newest first by their stored millisecond,
// then id, as the SQL list does.
func newerAccount(a, b accounts.Account) int {
	if c := cmp.Compare(core.Millis(b.CreatedAt), core.Millis(a.CreatedAt)); c != 0 {
		return c
	}
	return cmp.Compare(b.ID, a.ID)
}

// List walks every account: the QA profile's few accounts need no index.
func (r *AccountRepo) List(_ context.Context, page core.Page) ([]accounts.Account, string, error) {
	var after *accounts.Account
	if page.Cursor != "" {
		c, err := core.ParseTimeCursor(page.Cursor)
		if err != nil {
			return nil, "", err
		}
		after = &accounts.Account{ID: c.ID, CreatedAt: core.FromMillis(c.At)}
	}
	r.mu.RLock()
	out := r.accounts.scan(func(a accounts.Account) bool { return after == nil || newerAccount(*after, a) < 0 }, newerAccount)
	r.mu.RUnlock()
	out, next := core.CutPage(out, page, func(a accounts.Account) string {
		return core.TimeCursor{At: core.Millis(a.CreatedAt), ID: a.ID}.String()
	})
	if out == nil {
		out = []accounts.Account{}
	}
	return out, next, nil
}

func (r *AccountRepo) SetBlocked(_ context.Context, userID string, blocked bool) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.accounts.update(userID, func(a *accounts.Account) error { a.Blocked = blocked; return nil }); err != nil {
		return nil, err
	}
	if !blocked {
		return nil, nil
	}
	return r.revokeLocked(userID), nil
}

func (r *AccountRepo) DeleteTokens(_ context.Context, userID string) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.revokeLocked(userID), nil
}

func (r *AccountRepo) MarkVerified(_ context.Context, userID string) (accounts.Removed, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.accounts.update(userID, func(a *accounts.Account) error { a.Verified = true; return nil }); err != nil {
		return accounts.Removed{}, err
	}
	out, _ := r.endWaysInLocked(userID, identityKey{})
	return out, nil
}
