package memory

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"tandem/core"
	"tandem/modules/accounts"
)

var (
	_ accounts.Repository  = (*AccountRepo)(nil)
	_ accounts.Outbox      = (*AccountRepo)(nil)
	_ accounts.Revocations = (*AccountRepo)(nil)
)

type codeKey struct {
	userID  string
	purpose accounts.Purpose
}

// AccountRepo keeps accounts, codes, tokens and the mail outbox in maps
// under one mutex, so each method is atomic like its SQL transaction.
type AccountRepo struct {
	mu      sync.RWMutex
	byID    map[string]accounts.Account
	byEmail map[string]string
	codes   map[codeKey]accounts.Code
	tokens  map[string]accounts.Token
	mails   map[string]accounts.OutboxMail
	// identities by (provider, subject): see accounts_identities.go.
	identities map[identityKey]accounts.Identity
	// passkeys are ways in too (accounts_ways.go); nil: none.
	passkeys *PasskeyRepo
	// idTokens are the ID tokens that signed in, until their expiry.
	idTokens map[string]time.Time
	// grants are the identities' sealed grants, revocations the queue of
	// removed identities' (accounts_revocations.go).
	grants      map[identityKey]string
	revocations map[string]accounts.Revocation
}

func NewAccountRepo() *AccountRepo {
	return &AccountRepo{byID: map[string]accounts.Account{}, byEmail: map[string]string{},
		codes: map[codeKey]accounts.Code{}, tokens: map[string]accounts.Token{}, mails: map[string]accounts.OutboxMail{},
		identities: map[identityKey]accounts.Identity{}, idTokens: map[string]time.Time{},
		grants: map[identityKey]string{}, revocations: map[string]accounts.Revocation{}}
}

func errAccountNotFound() error {
	return core.NotFound("not_found", "memory.accountNotFound", "account not found")
}

func (r *AccountRepo) Create(_ context.Context, a accounts.Account) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, taken := r.byEmail[a.Email]; taken {
		return core.Conflict("conflict", "memory.mailTaken", "e-mail taken")
	}
	r.byID[a.ID] = a
	r.byEmail[a.Email] = a.ID
	return nil
}

func (r *AccountRepo) Get(_ context.Context, id string) (accounts.Account, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	a, ok := r.byID[id]
	if !ok {
		return accounts.Account{}, errAccountNotFound()
	}
	return a, nil
}

func (r *AccountRepo) GetByEmail(ctx context.Context, email string) (accounts.Account, error) {
	r.mu.RLock()
	id, ok := r.byEmail[email]
	r.mu.RUnlock()
	if !ok {
		return accounts.Account{}, errAccountNotFound()
	}
	return r.Get(ctx, id)
}

func (r *AccountRepo) GetMany(_ context.Context, ids []string) ([]accounts.Account, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := []accounts.Account{}
	for _, id := range ids {
		if a, ok := r.byID[id]; ok {
			out = append(out, a)
		}
	}
	return out, nil
}

// Search walks every e-mail: the QA profile's few accounts need no index.
func (r *AccountRepo) Search(_ context.Context, prefix string, page core.Page) ([]accounts.Account, string, error) {
	after := ""
	if page.Cursor != "" {
		c, err := accounts.ParseSearchCursor(page.Cursor)
		if err != nil {
			return nil, "", err
		}
		after = c.Email
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	var emails []string
	for e := range r.byEmail {
		if strings.HasPrefix(e, prefix) && e > after {
			emails = append(emails, e)
		}
	}
	slices.Sort(emails)
	out := make([]accounts.Account, 0, min(len(emails), page.Size()+1))
	for _, e := range emails[:min(len(emails), page.Size()+1)] {
		out = append(out, r.byID[r.byEmail[e]])
	}
	out, next := accounts.SearchPage(out, page)
	return out, next, nil
}

func (r *AccountRepo) update(id string, fn func(a *accounts.Account)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	a, ok := r.byID[id]
	if !ok {
		return errAccountNotFound()
	}
	fn(&a)
	r.byID[id] = a
	return nil
}

// UpdateProfile stores a but for what the profile never changes (the
// sign-in fields), so a new profile field needs nothing here.
func (r *AccountRepo) UpdateProfile(_ context.Context, a accounts.Account) error {
	return r.update(a.ID, func(s *accounts.Account) {
		a.Email, a.PasswordHash, a.Verified, a.Admin, a.Blocked, a.CreatedAt = s.Email, s.PasswordHash, s.Verified, s.Admin, s.Blocked, s.CreatedAt
		*s = a
	})
}

func (r *AccountRepo) SetAdmin(_ context.Context, email string, admin bool) error {
	r.mu.RLock()
	id, ok := r.byEmail[email]
	r.mu.RUnlock()
	if !ok {
		return errAccountNotFound()
	}
	return r.update(id, func(a *accounts.Account) { a.Admin = admin })
}

func (r *AccountRepo) Delete(_ context.Context, id string) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a, ok := r.byID[id]
	if !ok {
		return nil, errAccountNotFound()
	}
	delete(r.byID, id)
	delete(r.byEmail, a.Email)
	delete(r.codes, codeKey{id, accounts.PurposeVerify})
	delete(r.codes, codeKey{id, accounts.PurposeReset})
	for k, ident := range r.identities {
		if ident.UserID == id {
			r.retireGrantLocked(ident, identityKey{})
			delete(r.identities, k)
		}
	}
	for mid, m := range r.mails {
		if m.UserID == id {
			delete(r.mails, mid)
		}
	}
	return r.revokeLocked(id), nil
}

func (r *AccountRepo) revokeLocked(userID string) []string {
	var hashes []string
	for h, t := range r.tokens {
		if t.UserID == userID {
			hashes = append(hashes, h)
			delete(r.tokens, h)
		}
	}
	return hashes
}

func (r *AccountRepo) PutCode(_ context.Context, c accounts.Code, m accounts.OutboxMail) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, old := range r.mails {
		if old.UserID == c.UserID && old.Kind == c.Purpose {
			delete(r.mails, id)
		}
	}
	r.codes[codeKey{c.UserID, c.Purpose}] = c
	m.Claim, m.ClaimedUntil = "", time.Time{}
	r.mails[m.ID] = m
	return nil
}

// mailDue reports whether m may be claimed at now, as the SQL WHERE does.
func mailDue(m accounts.OutboxMail, now time.Time) bool {
	return !m.NextAttemptAt.After(now) && m.ClaimedUntil.Before(now) && m.NotAfter.After(now)
}

func (r *AccountRepo) DueMail(_ context.Context, now time.Time, limit int) ([]accounts.OutboxMail, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []accounts.OutboxMail
	for _, m := range r.mails {
		if mailDue(m, now) {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b accounts.OutboxMail) int {
		if c := a.NextAttemptAt.Compare(b.NextAttemptAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out[:min(limit, len(out))], nil
}

func (r *AccountRepo) ClaimMail(_ context.Context, id, claim string, now, until time.Time) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m, ok := r.mails[id]
	if !ok || !mailDue(m, now) {
		return false, nil
	}
	m.Claim, m.ClaimedUntil = claim, until
	r.mails[id] = m
	return true, nil
}

func (r *AccountRepo) RetryMail(_ context.Context, id, claim string, attempts int, next time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if m, ok := r.mails[id]; ok && claim != "" && m.Claim == claim {
		m.Attempts, m.NextAttemptAt, m.Claim, m.ClaimedUntil = attempts, next, "", time.Time{}
		r.mails[id] = m
	}
	return nil
}

func (r *AccountRepo) ForgetMail(_ context.Context, id, claim string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if m, ok := r.mails[id]; ok && claim != "" && m.Claim == claim {
		delete(r.mails, id)
	}
	return nil
}

func (r *AccountRepo) DropExpiredMail(_ context.Context, now time.Time, limit int) ([]accounts.OutboxMail, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []accounts.OutboxMail
	for id, m := range r.mails {
		if len(out) < limit && !m.NotAfter.After(now) && m.ClaimedUntil.Before(now) {
			delete(r.mails, id)
			m.To, m.Text = "", ""
			out = append(out, m)
		}
	}
	return out, nil
}

func (r *AccountRepo) PendingMail(context.Context) (int, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.mails), nil
}

func (r *AccountRepo) GetCode(_ context.Context, userID string, p accounts.Purpose) (accounts.Code, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	c, ok := r.codes[codeKey{userID, p}]
	if !ok {
		return accounts.Code{}, core.NotFound("not_found", "memory.noCode", "no code")
	}
	return c, nil
}

// UpdateCode holds the mutex for the whole decision, as the SQL
// transaction holds its row locks.
func (r *AccountRepo) UpdateCode(_ context.Context, userID string, p accounts.Purpose, decide accounts.CodeDecision) (accounts.Removed, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := codeKey{userID, p}
	c, ok := r.codes[k]
	a, found := r.byID[userID]
	if !ok || !found {
		return accounts.Removed{}, core.NotFound("not_found", "memory.noCode", "no code")
	}
	u, err := decide(c, a)
	if err != nil {
		return accounts.Removed{}, err
	}
	switch {
	case u.Consume:
		delete(r.codes, k)
	case u.Code != nil:
		r.codes[k] = *u.Code
	}
	if u.Verify {
		a.Verified = true
		r.byID[userID] = a
	}
	var removed accounts.Removed
	if u.PasswordHash != "" {
		a.PasswordHash, a.UpdatedAt = u.PasswordHash, u.At
		r.byID[userID] = a
		removed.Sessions = r.revokeLocked(userID)
	}
	if u.EndWaysIn {
		ended, _ := r.endWaysInLocked(userID, identityKey{})
		removed.Add(ended)
	}
	if u.Token != nil {
		r.tokens[u.Token.Hash] = *u.Token
	}
	return removed, nil
}

func (r *AccountRepo) ClearPendingPassword(_ context.Context, userID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if a, ok := r.byID[userID]; ok && !a.Verified {
		a.PasswordHash = ""
		r.byID[userID] = a
	}
	return nil
}

func (r *AccountRepo) SetPassword(_ context.Context, userID, hash string, now time.Time, t accounts.Token) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a, ok := r.byID[userID]
	if !ok {
		return nil, errAccountNotFound()
	}
	a.PasswordHash, a.UpdatedAt = hash, now
	r.byID[a.ID] = a
	revoked := r.revokeLocked(a.ID)
	r.tokens[t.Hash] = t
	return revoked, nil
}

func (r *AccountRepo) CreateToken(_ context.Context, t accounts.Token, decide func([]accounts.Token) []string) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.byID[t.UserID]; !ok {
		return nil, errAccountNotFound()
	}
	revoked := decide(r.tokensLocked(t.UserID))
	r.tokens[t.Hash] = t
	for _, h := range revoked {
		delete(r.tokens, h)
	}
	return revoked, nil
}

// tokensLocked lists the user's tokens newest first, as the SQL index does.
func (r *AccountRepo) tokensLocked(userID string) []accounts.Token {
	var out []accounts.Token
	for _, t := range r.tokens {
		if t.UserID == userID {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b accounts.Token) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return out
}

func (r *AccountRepo) Session(_ context.Context, tokenHash string) (accounts.Session, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.tokens[tokenHash]
	if !ok {
		return accounts.Session{}, core.NotFound("not_found", "memory.noToken", "no token")
	}
	a := r.byID[t.UserID]
	return accounts.Session{UserID: t.UserID, Email: a.Email, Admin: a.Admin, Verified: a.Verified,
		Blocked: a.Blocked, SignedInAt: t.CreatedAt, ExpiresAt: t.ExpiresAt,
		LastUsedAt: t.LastUsedAt}, nil
}

func (r *AccountRepo) TouchToken(_ context.Context, tokenHash string, at time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t, ok := r.tokens[tokenHash]; ok {
		t.LastUsedAt = at
		r.tokens[tokenHash] = t
	}
	return nil
}

func (r *AccountRepo) DeleteToken(_ context.Context, tokenHash string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.tokens, tokenHash)
	return nil
}

func (r *AccountRepo) Tokens(_ context.Context, userID string) ([]accounts.Token, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.tokensLocked(userID), nil
}

func (r *AccountRepo) DeleteSession(_ context.Context, userID, sessionID string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for h, t := range r.tokens {
		if t.ID == sessionID && t.UserID == userID {
			delete(r.tokens, h)
			return h, nil
		}
	}
	return "", core.NotFound("not_found", "memory.noSession", "no session")
}

func (r *AccountRepo) Purge(_ context.Context, now time.Time) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for h, t := range r.tokens {
		if t.ExpiresAt.Before(now) {
			delete(r.tokens, h)
			n++
		}
	}
	for k, c := range r.codes {
		if c.ExpiresAt.Before(now) && c.ProofExpiresAt.Before(now) {
			delete(r.codes, k)
			n++
		}
	}
	for id, m := range r.mails {
		if m.NotAfter.Before(now) && m.ClaimedUntil.Before(now) {
			delete(r.mails, id)
			n++
		}
	}
	for h, exp := range r.idTokens {
		if exp.Before(now) {
			delete(r.idTokens, h)
			n++
		}
	}
	return n, nil
}

// OldestMail is when the oldest queued mail was queued (the outbox age
// metric); false when the outbox is empty.
func (r *AccountRepo) OldestMail(context.Context) (time.Time, bool, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var oldest time.Time
	for _, m := range r.mails {
		if oldest.IsZero() || m.CreatedAt.Before(oldest) {
			oldest = m.CreatedAt
		}
	}
	return oldest, !oldest.IsZero(), nil
}
