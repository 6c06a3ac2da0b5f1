package accounts_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/adapters/i18n"
	"tandem/adapters/memory"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/accounts"
	"tandem/modules/throttle"
)

// The rules of Apple's grants on memory fakes: a code is redeemed before
// the ID token is spent, its grant is written with the sign-in or dropped
// with it (never revoked: that would end the user's whole authorization),
// and the Revoker never drops a grant it could not revoke.

// fakeGrants redeems the codes it holds ("code" → grant); the code "down"
// is Apple unreachable. Revoke records what it revoked; down makes it fail,
// gone refuses the grant for good.
type fakeGrants struct {
	mu       sync.Mutex
	codes    map[string]accounts.Grant
	revoked  []string
	down     bool
	gone     bool
	redeemed int
}

func (f *fakeGrants) Exchange(_ context.Context, provider, client, code string) (accounts.Grant, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if code == "down" {
		e := core.Unavailable("unavailable", "accounts.appleCannotReachedFinishSigning", "Apple cannot be reached to finish signing in; try again in a moment")
		e.RetryAfter = 10 * time.Second
		return accounts.Grant{}, e
	}
	g, ok := f.codes[code]
	if !ok || provider != accounts.ProviderApple || client != "com.example.tandem" {
		return accounts.Grant{}, accounts.ErrAuthorizationCode()
	}
	delete(f.codes, code)
	f.redeemed++
	return g, nil
}

func (f *fakeGrants) Revoke(_ context.Context, _, client, token string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.down:
		return core.Unavailable("unavailable", "accounts.down", "down")
	case f.gone:
		return fmt.Errorf("%w: invalid_grant", accounts.ErrGrantGone)
	}
	f.revoked = append(f.revoked, client+"/"+token)
	return nil
}

func (f *fakeGrants) revokedList() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.revoked...)
}

// fakeSealer "seals" by prefixing the context and reversing the text: never
// the plain text, and a wrong context does not open.
type fakeSealer struct{ broken bool }

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

func (fakeSealer) Seal(plain, context string) (string, error) {
	return context + "|" + reverse(plain), nil
}

func (s fakeSealer) Open(sealed, context string) (string, error) {
	body, ok := strings.CutPrefix(sealed, context+"|")
	if !ok || s.broken {
		return "", errors.New("does not open")
	}
	return reverse(body), nil
}

// revLog records the Revoker's outcomes.
type revLog struct {
	mu                       sync.Mutex
	revoked, failed, dropped int
	lastNext                 time.Time
}

func (l *revLog) Revoked(context.Context, accounts.Revocation) {
	l.mu.Lock()
	l.revoked++
	l.mu.Unlock()
}
func (l *revLog) RevokeFailed(_ context.Context, _ accounts.Revocation, _ error, next time.Time) {
	l.mu.Lock()
	l.failed++
	l.lastNext = next
	l.mu.Unlock()
}
func (l *revLog) RevokeDropped(context.Context, accounts.Revocation, string) {
	l.mu.Lock()
	l.dropped++
	l.mu.Unlock()
}

type grantFixture struct {
	svc     *accounts.Service
	repo    *memory.AccountRepo
	grants  *fakeGrants
	revoker *accounts.Revoker
	log     *revLog
	clock   *coretest.FixedClock
	tokens  fakeIDTokens
}

func newGrantFixture(t *testing.T, sealer fakeSealer) *grantFixture {
	t.Helper()
	f := &grantFixture{repo: memory.NewAccountRepo(), grants: &fakeGrants{codes: map[string]accounts.Grant{}},
		log: &revLog{}, clock: coretest.NewClock(time.Time{}), tokens: fakeIDTokens{}}
	ids := &coretest.SeqIDs{}
	f.revoker = accounts.NewRevoker(f.repo, f.grants, sealer, f.log, f.clock, ids)
	sender := accounts.NewSender(f.repo, &outbox{}, &mailLog{}, f.clock, ids, accounts.SenderSettings{})
	svc, err := accounts.NewService(accounts.Deps{Repo: f.repo, Sender: sender, Hasher: plainHasher{},
		Cache: &mapCache{m: map[string]accounts.Session{}}, Limiter: throttle.NewLimiter(memory.NewThrottleRepo(), f.clock),
		Bus: &coretest.Events{}, Clock: f.clock, IDs: ids, IDTokens: f.tokens, Texts: i18n.MustLoad(nil),
		Grants: f.grants, Sealer: sealer, Revoker: f.revoker})
	if err != nil {
		t.Fatal(err)
	}
	f.svc = svc
	return f
}

func (f *grantFixture) claim(token, sub string) {
	f.tokens["apple/"+token] = accounts.IdentityClaim{Provider: "apple", Subject: sub, Email: sub + "@x.io",
		EmailVerified: true, Client: "com.example.tandem", TokenHash: "h-" + token, ExpiresAt: f.clock.Now().Add(time.Hour)}
}

func (f *grantFixture) signIn(token, code string) (string, error) {
	id, _, _, err := f.svc.SignIn(context.Background(), accounts.SignInRequest{Provider: "apple", IDToken: token,
		AuthorizationCode: code}, cl)
	return id, err
}

func (f *grantFixture) pending(t *testing.T) []accounts.Revocation {
	t.Helper()
	due, err := f.repo.DueRevocations(context.Background(), f.clock.Now().Add(24*time.Hour), 100)
	if err != nil {
		t.Fatal(err)
	}
	return due
}

func TestSignInKeepsAppleGrantAndUnlinkQueuesIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newGrantFixture(t, fakeSealer{})
	f.claim("t1", "s1")
	f.grants.codes["c1"] = accounts.Grant{RefreshToken: "r1", Subject: "s1"}
	id, err := f.signIn("t1", "c1")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.pending(t)) != 0 {
		t.Fatal("a kept grant was queued")
	}
	if _, err := f.svc.ChangePassword(ctx, id, f.clock.Now(), "", "password1", cl); err != nil {
		t.Fatal(err) // another way in, so that Apple may go
	}
	if err := f.svc.Unlink(ctx, id, "apple"); err != nil {
		t.Fatal(err)
	}
	q := f.pending(t)
	if len(q) != 1 || q[0].Subject != "s1" || q[0].UserID != id || strings.Contains(q[0].Token, "r1") {
		t.Fatalf("queued %+v: the grant, sealed", q)
	}
	if n, err := f.revoker.RevokeDue(ctx); err != nil || n != 1 {
		t.Fatalf("revoked %d: %v", n, err)
	}
	if got := f.grants.revokedList(); len(got) != 1 || got[0] != "com.example.tandem/r1" {
		t.Fatalf("revoked %v: the token, named with the client it was issued to", got)
	}
	if len(f.pending(t)) != 0 {
		t.Fatal("a revoked grant stays queued")
	}
}

func TestSignInWithACodeRules(t *testing.T) {
	t.Parallel()
	f := newGrantFixture(t, fakeSealer{})

	// Apple down: 503 with Retry-After, nothing spent, so the same request succeeds later.
	f.claim("t1", "s1")
	_, err := f.signIn("t1", "down")
	if e := core.As(err); e.Kind != core.KindUnavailable || e.RetryAfter == 0 {
		t.Fatalf("Apple down: %v", err)
	}
	f.grants.codes["c1"] = accounts.Grant{RefreshToken: "r1", Subject: "s1"}
	if _, err := f.signIn("t1", "c1"); err != nil {
		t.Fatalf("the ID token was spent while Apple was down: %v", err)
	}

	// A code Apple refuses: 401, nothing made.
	f.claim("t2", "s2")
	_, err = f.signIn("t2", "unknown")
	coretest.WantErr(t, err, core.KindUnauthorized, "invalid_token")
	if _, err := f.repo.GetByEmail(context.Background(), "s2@x.io"); !core.IsKind(err, core.KindNotFound) {
		t.Fatalf("an account was made: %v", err)
	}

	// A code of another subject: 401; that grant is dropped, not revoked
	// (it may back that user's own account).
	f.grants.codes["c3"] = accounts.Grant{RefreshToken: "r3", Subject: "someone-else"}
	_, err = f.signIn("t2", "c3")
	coretest.WantErr(t, err, core.KindUnauthorized, "invalid_token")

	// A replayed ID token with a fresh code: 401; that grant, of the same
	// authorization as the one the identity keeps, is dropped.
	f.grants.codes["c4"] = accounts.Grant{RefreshToken: "r4", Subject: "s1"}
	_, err = f.signIn("t1", "c4")
	coretest.WantErr(t, err, core.KindUnauthorized, "invalid_token")
	if q := f.pending(t); len(q) != 0 {
		t.Fatalf("queued %+v", q)
	}
	if n, err := f.revoker.RevokeDue(context.Background()); err != nil || n != 0 || len(f.grants.revokedList()) != 0 {
		t.Fatalf("revoked %d %v: %v", n, f.grants.revokedList(), err)
	}

	// A code too long is refused before Apple is asked.
	before := f.grants.redeemed
	_, err = f.signIn("t2", strings.Repeat("c", accounts.MaxAuthorizationCode+1))
	coretest.WantErr(t, err, core.KindUnauthorized, "invalid_token")
	if f.grants.redeemed != before {
		t.Fatal("Apple was asked")
	}
}

// TestACodeIsIgnoredWithoutAppleKey: with no team key configured (no
// ProviderGrants) the code is ignored and the ID token signs in alone.
func TestACodeIsIgnoredWithoutAppleKey(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.tokens["apple/t1"] = accounts.IdentityClaim{Provider: "apple", Subject: "s1", Email: "s1@x.io", EmailVerified: true}
	if _, _, created, err := f.svc.SignIn(context.Background(), accounts.SignInRequest{Provider: "apple", IDToken: "t1",
		AuthorizationCode: "anything"}, cl); err != nil || !created {
		t.Fatalf("%v %v", created, err)
	}
}

// TestRevokerRules: a failure is retried with backoff and ends the pass; a
// grant the provider no longer knows is dropped; one that does not open
// (its key no longer configured) is kept and retried, never dropped.
func TestRevokerRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newGrantFixture(t, fakeSealer{})
	sealer := fakeSealer{}
	queue := func(sub, token string) {
		s, _ := sealer.Seal(`{"client":"com.example.tandem","token":"`+token+`"}`, "apple:"+sub)
		if err := f.repo.QueueRevocation(ctx, accounts.RevocationOf("apple", sub, "u1", s)); err != nil {
			t.Fatal(err)
		}
	}
	queue("s1", "r1")
	queue("s2", "r2")
	f.grants.down = true
	if n, err := f.revoker.RevokeDue(ctx); err != nil || n != 0 {
		t.Fatalf("%d %v", n, err)
	}
	if f.log.failed != 1 || !f.log.lastNext.Equal(f.clock.Now().Add(accounts.RevokeRetryFirst)) {
		t.Fatalf("one failure ends the pass, retried after the first backoff: %+v", f.log)
	}
	if n, _ := f.revoker.RevokeDue(ctx); n != 0 || f.log.failed != 2 {
		t.Fatalf("the other, still due, fails too: %+v", f.log)
	}
	if n, _ := f.revoker.RevokeDue(ctx); n != 0 || f.log.failed != 2 {
		t.Fatalf("nothing due during the backoff: %+v", f.log)
	}
	f.grants.down = false
	f.clock.Advance(accounts.RevokeRetryFirst)
	if n, err := f.revoker.RevokeDue(ctx); err != nil || n != 2 {
		t.Fatalf("after the backoff: %d %v", n, err)
	}
	if got := accounts.RevokeRetryAt(20, f.clock.Now()); !got.Equal(f.clock.Now().Add(accounts.RevokeRetryMax)) {
		t.Fatalf("the backoff is capped: %v", got)
	}

	queue("s3", "r3")
	f.grants.gone = true
	if n, _ := f.revoker.RevokeDue(ctx); n != 0 || f.log.dropped != 1 || len(f.pending(t)) != 0 {
		t.Fatalf("a grant the provider no longer knows: %+v, %d pending", f.log, len(f.pending(t)))
	}

	broken := newGrantFixture(t, fakeSealer{broken: true})
	if err := broken.repo.QueueRevocation(ctx, accounts.RevocationOf("apple", "s4", "u1", "apple:s4|x")); err != nil {
		t.Fatal(err)
	}
	if n, _ := broken.revoker.RevokeDue(ctx); n != 0 || broken.log.failed != 1 || broken.log.dropped != 0 || len(broken.pending(t)) != 1 {
		t.Fatalf("a grant that does not open: %+v", broken.log)
	}
}
