package memory

import (
	"cmp"
	"context"
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

// AccountRepo keeps accounts, codes, tokens and the mail outbox in tables
// under one mutex, so each method is atomic like its SQL transaction.
type AccountRepo struct {
	mu       sync.RWMutex
	accounts table[string, accounts.Account] // unique: Email
	codes    table[codeKey, accounts.Code]
	tokens   table[string, accounts.Token] // by Hash
	mails    queue[accounts.OutboxMail]
	// identities by (provider, subject): see accounts_identities.go.
	identities table[identityKey, accounts.Identity]
	// passkeys are ways in too (accounts_ways.go); nil: none.
	passkeys *PasskeyRepo
	// idTokens are the ID tokens that signed in, until their expiry.
	idTokens table[string, time.Time]
	// grants are the identities' sealed grants, revocations the queue of
	// removed identities' (accounts_revocations.go).
	grants      map[identityKey]string
	revocations queue[accounts.Revocation]
}

func NewAccountRepo() *AccountRepo {
	return &AccountRepo{
		accounts: newTable[string, accounts.Account](conflict("memory.mailTaken", "e-mail taken"),
			notFound("memory.accountNotFound", "account not found")).
			indexed(func(a accounts.Account) string { return a.Email }),
		codes:  newTable[codeKey, accounts.Code](nil, notFound("memory.noCode", "no code")),
		tokens: newTable[string, accounts.Token](nil, notFound("memory.noToken", "no token")),
		mails: queue[accounts.OutboxMail]{table: newTable[string, accounts.OutboxMail](nil, nil),
			lease: func(m *accounts.OutboxMail) lease {
				return lease{id: m.ID, attempts: &m.Attempts, next: &m.NextAttemptAt, until: &m.ClaimedUntil, claim: &m.Claim}
			},
			live: func(m accounts.OutboxMail, now time.Time) bool { return m.NotAfter.After(now) }},
		identities: newTable[identityKey, accounts.Identity](conflict("memory.identityTaken", "identity taken"), nil),
		idTokens:   newTable[string, time.Time](conflict("memory.alreadyExists", "already exists"), nil),
		grants:     map[identityKey]string{},
		revocations: queue[accounts.Revocation]{table: newTable[string, accounts.Revocation](nil, nil),
			lease: func(rv *accounts.Revocation) lease {
				return lease{id: rv.ID, attempts: &rv.Attempts, next: &rv.NextAttemptAt, until: &rv.ClaimedUntil, claim: &rv.Claim}
			}},
	}
}

func (r *AccountRepo) Create(_ context.Context, a accounts.Account) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.createLocked(a)
}

// createLocked refuses a taken e-mail (the ids are the service's own).
func (r *AccountRepo) createLocked(a accounts.Account) error {
	if _, taken := r.accounts.lookup(a.Email); taken {
		return r.accounts.conflict()
	}
	r.accounts.put(a.ID, a)
	return nil
}

func (r *AccountRepo) Get(_ context.Context, id string) (accounts.Account, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.accounts.find(id)
}

func (r *AccountRepo) GetByEmail(_ context.Context, email string) (accounts.Account, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	a, ok := r.accounts.lookup(email)
	if !ok {
		return accounts.Account{}, r.accounts.notFound()
	}
	return a, nil
}

func (r *AccountRepo) GetMany(_ context.Context, ids []string) ([]accounts.Account, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := []accounts.Account{}
	for _, id := range ids {
		if a, ok := r.accounts.get(id); ok {
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
	out := r.accounts.scan(func(a accounts.Account) bool { return strings.HasPrefix(a.Email, prefix) && a.Email > after },
		func(a, b accounts.Account) int { return strings.Compare(a.Email, b.Email) })
	r.mu.RUnlock()
	out, next := accounts.SearchPage(out[:min(len(out), page.Size()+1)], page)
	return out, next, nil
}

func (r *AccountRepo) update(id string, fn func(a *accounts.Account)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, err := r.accounts.update(id, func(a *accounts.Account) error { fn(a); return nil })
	return err
}

// UpdateProfile stores a but for what the profile never changes (the
// sign-in fields), so a new profile field needs nothing here.
func (r *AccountRepo) UpdateProfile(_ context.Context, a accounts.Account) error {
	return r.update(a.ID, func(s *accounts.Account) {
		a.Email, a.PasswordHash, a.Verified, a.Admin, a.Blocked, a.CreatedAt = s.Email, s.PasswordHash, s.Verified, s.Admin, s.Blocked, s.CreatedAt
		*s = a
	})
}

func (r *AccountRepo) SetAdmin(ctx context.Context, email string, admin bool) error {
	a, err := r.GetByEmail(ctx, email)
	if err != nil {
		return err
	}
	return r.update(a.ID, func(a *accounts.Account) { a.Admin = admin })
}

func (r *AccountRepo) Delete(_ context.Context, id string) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.accounts.delete(id); !ok {
		return nil, r.accounts.notFound()
	}
	r.codes.delete(codeKey{id, accounts.PurposeVerify})
	r.codes.delete(codeKey{id, accounts.PurposeReset})
	for _, ident := range r.identities.scan(func(i accounts.Identity) bool { return i.UserID == id }, nil) {
		r.retireGrantLocked(ident, identityKey{})
		r.identities.delete(identityKey{ident.Provider, ident.Subject})
	}
	r.mails.deleteWhere(func(_ string, m accounts.OutboxMail) bool { return m.UserID == id })
	return r.revokeLocked(id), nil
}

func (r *AccountRepo) revokeLocked(userID string) []string {
	return r.tokens.deleteWhere(func(_ string, t accounts.Token) bool { return t.UserID == userID })
}

func (r *AccountRepo) PutCode(_ context.Context, c accounts.Code, m accounts.OutboxMail) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.mails.deleteWhere(func(_ string, old accounts.OutboxMail) bool {
		return old.UserID == c.UserID && old.Kind == c.Purpose
	})
	r.codes.put(codeKey{c.UserID, c.Purpose}, c)
	m.Claim, m.ClaimedUntil = "", time.Time{}
	r.mails.put(m.ID, m)
	return nil
}

func (r *AccountRepo) DueMail(_ context.Context, now time.Time, limit int) ([]accounts.OutboxMail, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.mails.due(now, limit), nil
}

func (r *AccountRepo) ClaimMail(_ context.Context, id, claim string, now, until time.Time) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.mails.claim(id, claim, now, until), nil
}

func (r *AccountRepo) RetryMail(_ context.Context, id, claim string, attempts int, next time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.mails.retry(id, claim, attempts, next)
	return nil
}

func (r *AccountRepo) ForgetMail(_ context.Context, id, claim string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.mails.forget(id, claim)
	return nil
}

func (r *AccountRepo) DropExpiredMail(_ context.Context, now time.Time, limit int) ([]accounts.OutboxMail, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []accounts.OutboxMail
	r.mails.deleteWhere(func(_ string, m accounts.OutboxMail) bool {
		if len(out) >= limit || m.NotAfter.After(now) || !m.ClaimedUntil.Before(now) {
			return false
		}
		m.To, m.Text = "", ""
		out = append(out, m)
		return true
	})
	return out, nil
}

func (r *AccountRepo) PendingMail(context.Context) (int, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.mails.len(), nil
}

func (r *AccountRepo) GetCode(_ context.Context, userID string, p accounts.Purpose) (accounts.Code, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.codes.find(codeKey{userID, p})
}

// UpdateCode holds the mutex for the whole decision, as the SQL
// transaction holds its row locks.
func (r *AccountRepo) UpdateCode(_ context.Context, userID string, p accounts.Purpose, decide accounts.CodeDecision) (accounts.Removed, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := codeKey{userID, p}
	c, ok := r.codes.get(k)
	a, found := r.accounts.get(userID)
	if !ok || !found {
		return accounts.Removed{}, r.codes.notFound()
	}
	u, err := decide(c, a)
	if err != nil {
		return accounts.Removed{}, err
	}
	switch {
	case u.Consume:
		r.codes.delete(k)
	case u.Code != nil:
		r.codes.put(k, *u.Code)
	}
	if u.Verify {
		a.Verified = true
		r.accounts.put(userID, a)
	}
	var removed accounts.Removed
	if u.PasswordHash != "" {
		a.PasswordHash, a.UpdatedAt = u.PasswordHash, u.At
		r.accounts.put(userID, a)
		removed.Sessions = r.revokeLocked(userID)
	}
	if u.EndWaysIn {
		ended, _ := r.endWaysInLocked(userID, identityKey{})
		removed.Add(ended)
	}
	if u.Token != nil {
		r.tokens.put(u.Token.Hash, *u.Token)
	}
	return removed, nil
}

func (r *AccountRepo) ClearPendingPassword(_ context.Context, userID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if a, ok := r.accounts.get(userID); ok && !a.Verified {
		a.PasswordHash = ""
		r.accounts.put(userID, a)
	}
	return nil
}

func (r *AccountRepo) SetPassword(_ context.Context, userID, hash string, now time.Time, t accounts.Token) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a, err := r.accounts.update(userID, func(a *accounts.Account) error {
		a.PasswordHash, a.UpdatedAt = hash, now
		return nil
	})
	if err != nil {
		return nil, err
	}
	revoked := r.revokeLocked(a.ID)
	r.tokens.put(t.Hash, t)
	return revoked, nil
}

func (r *AccountRepo) CreateToken(_ context.Context, t accounts.Token, decide func([]accounts.Token) []string) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.accounts.has(t.UserID) {
		return nil, r.accounts.notFound()
	}
	revoked := decide(r.tokensLocked(t.UserID))
	r.tokens.put(t.Hash, t)
	for _, h := range revoked {
		r.tokens.delete(h)
	}
	return revoked, nil
}

// tokensLocked lists the user's tokens newest first, as the SQL index does.
func (r *AccountRepo) tokensLocked(userID string) []accounts.Token {
	return r.tokens.scan(func(t accounts.Token) bool { return t.UserID == userID }, func(a, b accounts.Token) int {
		return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), strings.Compare(b.ID, a.ID))
	})
}

func (r *AccountRepo) Session(_ context.Context, tokenHash string) (accounts.Session, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, err := r.tokens.find(tokenHash)
	if err != nil {
		return accounts.Session{}, err
	}
	a, _ := r.accounts.get(t.UserID)
	return accounts.Session{UserID: t.UserID, Email: a.Email, Admin: a.Admin, Verified: a.Verified,
		Blocked: a.Blocked, SignedInAt: t.CreatedAt, ExpiresAt: t.ExpiresAt,
		LastUsedAt: t.LastUsedAt}, nil
}

func (r *AccountRepo) TouchToken(_ context.Context, tokenHash string, at time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t, ok := r.tokens.get(tokenHash); ok {
		t.LastUsedAt = at
		r.tokens.put(tokenHash, t)
	}
	return nil
}

func (r *AccountRepo) DeleteToken(_ context.Context, tokenHash string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tokens.delete(tokenHash)
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
	h, _, ok := r.tokens.pick(func(t accounts.Token) bool { return t.ID == sessionID && t.UserID == userID })
	if !ok {
		return "", core.NotFound("not_found", "memory.noSession", "no session")
	}
	r.tokens.delete(h)
	return h, nil
}

func (r *AccountRepo) Purge(_ context.Context, now time.Time) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.tokens.deleteWhere(func(_ string, t accounts.Token) bool { return t.ExpiresAt.Before(now) }))
	n += len(r.codes.deleteWhere(func(_ codeKey, c accounts.Code) bool {
		return c.ExpiresAt.Before(now) && c.ProofExpiresAt.Before(now)
	}))
	n += len(r.mails.deleteWhere(func(_ string, m accounts.OutboxMail) bool {
		return m.NotAfter.Before(now) && m.ClaimedUntil.Before(now)
	}))
	n += len(r.idTokens.deleteWhere(func(_ string, exp time.Time) bool { return exp.Before(now) }))
	return n, nil
}

// OldestMail is when the oldest queued mail was queued (the outbox age
// metric); false when the outbox is empty.
func (r *AccountRepo) OldestMail(context.Context) (time.Time, bool, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var oldest time.Time
	for _, m := range r.mails.rows {
		if oldest.IsZero() || m.CreatedAt.Before(oldest) {
			oldest = m.CreatedAt
		}
	}
	return oldest, !oldest.IsZero(), nil
}
