package accounts_test

import (
	"context"
	"fmt"
	"regexp"
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

// fixture is a Service on memory fakes with a fixed clock.
type fixture struct {
	svc    *accounts.Service
	sender *accounts.Sender
	log    *mailLog
	repo   *memory.AccountRepo
	clock  *coretest.FixedClock
	mail   *outbox
	cache  *mapCache
	bus    *coretest.Events
	tokens fakeIDTokens
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{repo: memory.NewAccountRepo(), clock: coretest.NewClock(time.Time{}), mail: &outbox{},
		cache: &mapCache{m: map[string]accounts.Session{}}, bus: &coretest.Events{}, tokens: fakeIDTokens{}}
	ids := &coretest.SeqIDs{}
	f.log = &mailLog{}
	sender := accounts.NewSender(f.repo, f.mail, f.log, f.clock, ids, accounts.SenderSettings{})
	f.sender = sender
	svc, err := accounts.NewService(accounts.Deps{Repo: f.repo, Sender: sender, Hasher: plainHasher{},
		Cache: f.cache, Limiter: throttle.NewLimiter(memory.NewThrottleRepo(), f.clock), Bus: f.bus,
		Clock: f.clock, IDs: ids, Admins: accounts.Admins{"Boss@X.io"}, IDTokens: f.tokens, Texts: i18n.MustLoad(nil)})
	if err != nil {
		t.Fatal(err)
	}
	f.svc = svc
	// The service only queues mail; reading the mailbox first runs the
	// Sender's pass, as the woken sender would.
	f.mail.deliver = func() {
		if _, err := sender.SendDue(context.Background()); err != nil {
			t.Error(err)
		}
	}
	return f
}

// verified signs up and verifies, returning the user id and token.
func (f *fixture) verified(t *testing.T, email string) (string, string) {
	t.Helper()
	id, err := f.svc.SignUp(context.Background(), email, "password1", cl)
	if err != nil {
		t.Fatal(err)
	}
	v, err := f.svc.VerifyEmail(context.Background(), id, f.mail.code(t, email), cl)
	if err != nil {
		t.Fatal(err)
	}
	if !v.PasswordRequired {
		return id, v.Token
	}
	// An administrator sets the password after proving the address.
	tok, err := f.svc.ChangePassword(context.Background(), id, f.clock.Now(), "", "password1", cl)
	if err != nil {
		t.Fatal(err)
	}
	return id, tok
}

func TestSignUpRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name     string
		email    string
		password string
		kind     core.Kind
		code     string
	}{
		{"valid", " Ann@Example.COM ", "password1", 0, ""},
		{"empty e-mail", "", "password1", core.KindInvalid, "invalid_request"},
		{"not an address", "ann", "password1", core.KindInvalid, "invalid_request"},
		{"e-mail of 10 KB", strings.Repeat("a", 10240) + "@x.io", "password1", core.KindInvalid, "invalid_request"},
		{"password of 7", "b@x.io", "1234567", core.KindInvalid, "invalid_request"},
		{"password of 129", "b@x.io", strings.Repeat("p", 129), core.KindInvalid, "invalid_request"},
		{"password of 128 multibyte", "c@x.io", strings.Repeat("é", 128), 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			id, err := f.svc.SignUp(ctx, tc.email, tc.password, cl)
			if tc.code != "" {
				coretest.WantErr(t, err, tc.kind, tc.code)
				if len(f.mail.all()) != 0 {
					t.Fatal("mail sent for a refused sign-up")
				}
				return
			}
			if err != nil || id == "" {
				t.Fatalf("id %q err %v", id, err)
			}
			a, _ := f.repo.Get(ctx, id)
			if a.Email != strings.ToLower(strings.TrimSpace(tc.email)) || a.Verified || a.PasswordHash == tc.password {
				t.Fatalf("stored %+v", a)
			}
		})
	}
}

func TestVerificationCodeRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("correct code verifies once, then is spent", func(t *testing.T) {
		f := newFixture(t)
		id, _ := f.svc.SignUp(ctx, "a@x.io", "password1", cl)
		code := f.mail.code(t, "a@x.io")
		tok, err := f.svc.VerifyEmail(ctx, id, code, cl)
		if err != nil || tok.Token == "" || tok.PasswordRequired {
			t.Fatal(err)
		}
		_, err = f.svc.VerifyEmail(ctx, id, code, cl)
		coretest.WantErr(t, err, core.KindInvalid, "invalid_code")
	})
	t.Run("expires after 15 minutes", func(t *testing.T) {
		f := newFixture(t)
		id, _ := f.svc.SignUp(ctx, "a@x.io", "password1", cl)
		code := f.mail.code(t, "a@x.io")
		f.clock.Advance(15 * time.Minute)
		_, err := f.svc.VerifyEmail(ctx, id, code, cl)
		coretest.WantErr(t, err, core.KindInvalid, "invalid_code")
	})
	t.Run("dead after 5 wrong tries, even for the right code", func(t *testing.T) {
		f := newFixture(t)
		id, _ := f.svc.SignUp(ctx, "a@x.io", "password1", cl)
		code := f.mail.code(t, "a@x.io")
		wrong := "000000"
		if code == wrong {
			wrong = "111111"
		}
		for i := 0; i < 5; i++ {
			_, err := f.svc.VerifyEmail(ctx, id, wrong, cl)
			coretest.WantErr(t, err, core.KindInvalid, "invalid_code")
		}
		_, err := f.svc.VerifyEmail(ctx, id, code, cl)
		coretest.WantErr(t, err, core.KindRateLimited, "too_many_attempts")
		if core.As(err).RetryAfter <= 0 {
			t.Fatal("no Retry-After")
		}
	})
	t.Run("signing up again sends a new code and kills the old one", func(t *testing.T) {
		f := newFixture(t)
		id, _ := f.svc.SignUp(ctx, "a@x.io", "password1", cl)
		old := f.mail.code(t, "a@x.io")
		id2, err := f.svc.SignUp(ctx, "a@x.io", "password1", cl)
		if err != nil || id2 != id {
			t.Fatalf("id %s/%s err %v", id, id2, err)
		}
		fresh := f.mail.code(t, "a@x.io")
		if old != fresh {
			_, err = f.svc.VerifyEmail(ctx, id, old, cl)
			coretest.WantErr(t, err, core.KindInvalid, "invalid_code")
		}
		if _, err := f.svc.VerifyEmail(ctx, id, fresh, cl); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a verified e-mail is taken", func(t *testing.T) {
		f := newFixture(t)
		f.verified(t, "a@x.io")
		_, err := f.svc.SignUp(ctx, "A@x.io", "password1", cl)
		coretest.WantErr(t, err, core.KindConflict, "email_already_registered")
	})
	t.Run("at most 5 codes per e-mail per hour", func(t *testing.T) {
		f := newFixture(t)
		for i := 0; i < 5; i++ {
			if _, err := f.svc.SignUp(ctx, "a@x.io", "password1", cl); err != nil {
				t.Fatal(err)
			}
			f.mail.all() // each sent before the next replaces it
		}
		_, err := f.svc.SignUp(ctx, "a@x.io", "password1", cl)
		coretest.WantErr(t, err, core.KindRateLimited, "rate_limited")
		_, err = f.svc.RequestReset(ctx, "a@x.io", cl)
		coretest.WantErr(t, err, core.KindRateLimited, "rate_limited")
		if n := len(f.mail.all()); n != 5 {
			t.Fatalf("%d mails", n)
		}
		f.clock.Advance(time.Hour)
		if _, err := f.svc.SignUp(ctx, "a@x.io", "password1", cl); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("unknown user", func(t *testing.T) {
		f := newFixture(t)
		_, err := f.svc.VerifyEmail(ctx, "ghost", "123456", cl)
		coretest.WantErr(t, err, core.KindNotFound, "user_not_found")
	})
}

func TestLoginRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	id, _ := f.verified(t, "a@x.io")
	_, _ = f.svc.SignUp(ctx, "pending@x.io", "password1", cl)

	cases := []struct {
		name, email, password string
		kind                  core.Kind
		code                  string
	}{
		{"missing e-mail has no code", "", "password1", core.KindInvalid, ""},
		{"missing password has no code", "a@x.io", "", core.KindInvalid, ""},
		{"wrong password", "a@x.io", "nope-nope", core.KindUnauthorized, "invalid_credentials"},
		{"unknown e-mail", "ghost@x.io", "password1", core.KindUnauthorized, "invalid_credentials"},
		{"unverified", "pending@x.io", "password1", core.KindForbidden, "email_not_verified"},
	}
	for _, tc := range cases {
		_, _, err := f.svc.Login(ctx, tc.email, tc.password, cl)
		coretest.WantErr(t, err, tc.kind, tc.code)
	}
	uid, tok, err := f.svc.Login(ctx, " A@X.io ", "password1", cl)
	if err != nil || uid != id || tok == "" {
		t.Fatalf("login: %s %s %v", uid, tok, err)
	}
}

func TestTenFailedLoginsIn15MinutesLockTheEmail(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	f.verified(t, "a@x.io")
	for i := 0; i < 10; i++ {
		_, _, err := f.svc.Login(ctx, "a@x.io", "wrong-password", cl)
		coretest.WantErr(t, err, core.KindUnauthorized, "invalid_credentials")
	}
	_, _, err := f.svc.Login(ctx, "a@x.io", "password1", cl)
	coretest.WantErr(t, err, core.KindRateLimited, "rate_limited")
	f.clock.Advance(15 * time.Minute)
	if _, _, err := f.svc.Login(ctx, "a@x.io", "password1", cl); err != nil {
		t.Fatal(err)
	}
}

func TestResetRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("request, verify, update revokes every older token", func(t *testing.T) {
		f := newFixture(t)
		id, tok1 := f.verified(t, "a@x.io")
		_, tok2, _ := f.svc.Login(ctx, "a@x.io", "password1", cl)
		if _, err := f.svc.Authenticate(ctx, tok1); err != nil { // warm the cache
			t.Fatal(err)
		}
		rid, err := f.svc.RequestReset(ctx, "A@x.io", cl)
		if err != nil || rid != id {
			t.Fatalf("%s %v", rid, err)
		}
		code := f.mail.code(t, "a@x.io")
		_, err = f.svc.UpdatePassword(ctx, id, "new-password", accounts.ResetProof{Code: code}, cl)
		coretest.WantErr(t, err, core.KindInvalid, "invalid_code") // not verified yet
		proof, err := f.svc.VerifyReset(ctx, id, code, cl)
		if err != nil || len(proof) < 40 {
			t.Fatalf("proof %q: %v", proof, err)
		}
		tok3, err := f.svc.UpdatePassword(ctx, id, "new-password", accounts.ResetProof{ResetToken: proof}, cl)
		if err != nil || tok3 == "" {
			t.Fatal(err)
		}
		for _, old := range []string{tok1, tok2} {
			_, err := f.svc.Authenticate(ctx, old)
			coretest.WantErr(t, err, core.KindUnauthorized, "unauthorized")
		}
		if p, err := f.svc.Authenticate(ctx, tok3); err != nil || p.UserID != id {
			t.Fatal(err)
		}
		_, _, err = f.svc.Login(ctx, "a@x.io", "password1", cl)
		coretest.WantErr(t, err, core.KindUnauthorized, "invalid_credentials")
		_, err = f.svc.UpdatePassword(ctx, id, "another-password", accounts.ResetProof{ResetToken: proof}, cl)
		coretest.WantErr(t, err, core.KindInvalid, "invalid_code") // the proof is spent
		_, err = f.svc.UpdatePassword(ctx, id, "another-password", accounts.ResetProof{Code: code}, cl)
		coretest.WantErr(t, err, core.KindInvalid, "invalid_code") // and so is the code
	})
	t.Run("unknown e-mail", func(t *testing.T) {
		f := newFixture(t)
		_, err := f.svc.RequestReset(ctx, "ghost@x.io", cl)
		coretest.WantErr(t, err, core.KindNotFound, "user_not_found")
	})
	t.Run("wrong and expired codes", func(t *testing.T) {
		f := newFixture(t)
		id, _ := f.verified(t, "a@x.io")
		_, _ = f.svc.RequestReset(ctx, "a@x.io", cl)
		code := f.mail.code(t, "a@x.io")
		wrong := "000000"
		if code == wrong {
			wrong = "111111"
		}
		_, err := f.svc.VerifyReset(ctx, id, wrong, cl)
		coretest.WantErr(t, err, core.KindInvalid, "invalid_code")
		f.clock.Advance(16 * time.Minute)
		_, err = f.svc.VerifyReset(ctx, id, code, cl)
		coretest.WantErr(t, err, core.KindInvalid, "invalid_code")
	})
	t.Run("the update step needs proof: none, wrong, or expired is invalid_code and changes nothing", func(t *testing.T) {
		f := newFixture(t)
		id, _ := f.verified(t, "a@x.io")
		_, _ = f.svc.RequestReset(ctx, "a@x.io", cl)
		code := f.mail.code(t, "a@x.io")
		proof, err := f.svc.VerifyReset(ctx, id, code, cl)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []accounts.ResetProof{{}, {Code: "not-it"}, {ResetToken: "forged-token"}} {
			_, err := f.svc.UpdatePassword(ctx, id, "new-password", p, cl)
			coretest.WantErr(t, err, core.KindInvalid, "invalid_code")
		}
		f.clock.Advance(accounts.ResetProofTTL)
		_, err = f.svc.UpdatePassword(ctx, id, "new-password", accounts.ResetProof{ResetToken: proof}, cl)
		coretest.WantErr(t, err, core.KindInvalid, "invalid_code") // the token lives 10 minutes
		f.clock.Advance(5 * time.Minute)
		_, err = f.svc.UpdatePassword(ctx, id, "new-password", accounts.ResetProof{Code: code}, cl)
		coretest.WantErr(t, err, core.KindInvalid, "invalid_code") // the code lives 15
		if _, _, err := f.svc.Login(ctx, "a@x.io", "password1", cl); err != nil {
			t.Fatalf("the password must be unchanged: %v", err)
		}
	})
	t.Run("wrong proofs count against the code", func(t *testing.T) {
		f := newFixture(t)
		id, _ := f.verified(t, "a@x.io")
		_, _ = f.svc.RequestReset(ctx, "a@x.io", cl)
		code := f.mail.code(t, "a@x.io")
		if _, err := f.svc.VerifyReset(ctx, id, code, cl); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < accounts.CodeMaxAttempts; i++ {
			_, _ = f.svc.UpdatePassword(ctx, id, "new-password", accounts.ResetProof{ResetToken: "guess"}, cl)
		}
		_, err := f.svc.UpdatePassword(ctx, id, "new-password", accounts.ResetProof{Code: code}, cl)
		coretest.WantErr(t, err, core.KindRateLimited, "too_many_attempts")
	})
	t.Run("a reset of a never-verified account verifies the e-mail", func(t *testing.T) {
		f := newFixture(t)
		id, _ := f.svc.SignUp(ctx, "a@x.io", "password1", cl)
		_, _ = f.svc.RequestReset(ctx, "a@x.io", cl)
		code := f.mail.code(t, "a@x.io")
		if _, err := f.svc.VerifyReset(ctx, id, code, cl); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.UpdatePassword(ctx, id, "new-password", accounts.ResetProof{Code: code}, cl); err != nil {
			t.Fatal(err)
		}
		if _, _, err := f.svc.Login(ctx, "a@x.io", "new-password", cl); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("new password is validated", func(t *testing.T) {
		f := newFixture(t)
		id, _ := f.verified(t, "a@x.io")
		_, err := f.svc.UpdatePassword(ctx, id, "short", accounts.ResetProof{Code: "123456"}, cl)
		coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
	})
}

func TestTokens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	id, tok := f.verified(t, "a@x.io")

	if _, err := f.svc.Authenticate(ctx, tok); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.cache.m[accounts.HashToken(tok)]; !ok {
		t.Fatal("a resolved token is cached, by its hash")
	}
	if err := f.svc.Logout(ctx, id, tok, false); err != nil {
		t.Fatal(err)
	}
	_, err := f.svc.Authenticate(ctx, tok)
	coretest.WantErr(t, err, core.KindUnauthorized, "unauthorized")

	_, tok2, _ := f.svc.Login(ctx, "a@x.io", "password1", cl)
	if _, err := f.svc.Authenticate(ctx, tok2); err != nil { // cached from here on
		t.Fatal(err)
	}
	f.clock.Advance(accounts.TokenTTL)
	if _, ok := f.cache.m[accounts.HashToken(tok2)]; !ok {
		t.Fatal("the expired session is still in the cache: the service must judge it by its own clock")
	}
	_, err = f.svc.Authenticate(ctx, tok2)
	coretest.WantErr(t, err, core.KindUnauthorized, "unauthorized")
	_, err = f.svc.Authenticate(ctx, "")
	coretest.WantErr(t, err, core.KindUnauthorized, "unauthorized")
	_ = id
}

func TestAdministrators(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	_, bossTok := f.verified(t, "boss@x.io")
	_, annTok := f.verified(t, "ann@x.io")
	if p, _ := f.svc.Authenticate(ctx, bossTok); !p.Admin {
		t.Fatal("configured e-mail is an administrator")
	}
	if p, _ := f.svc.Authenticate(ctx, annTok); p.Admin {
		t.Fatal("ann is not")
	}
	if err := f.svc.SetAdmin(ctx, "ANN@x.io", true); err != nil {
		t.Fatal(err)
	}
	if p, _ := f.svc.Authenticate(ctx, annTok); !p.Admin {
		t.Fatal("granted: the cached session is forgotten at once")
	}
	if err := f.svc.SetAdmin(ctx, "ann@x.io", false); err != nil {
		t.Fatal(err)
	}
	if p, _ := f.svc.Authenticate(ctx, annTok); p.Admin {
		t.Fatal("revoked: the cached session is forgotten at once")
	}
	coretest.WantErr(t, f.svc.SetAdmin(ctx, "ghost@x.io", true), core.KindNotFound, "user_not_found")
}

func TestSearchRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	// "ben" is an id too: a query that is an id finds that account first.
	for id, email := range map[string]string{"u1": "ann@x.io", "u2": "anna@x.io", "ben": "bob@x.io", "u4": "ben@x.io",
		"u5": "an_x@x.io", "u6": "ｚoe@x.io"} {
		if err := f.repo.Create(ctx, accounts.Account{ID: id, Email: accounts.FoldEmail(email)}); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name, q string
		want    string // the e-mails found, space-separated
		kind    core.Kind
	}{
		{name: "a prefix, folded, in e-mail order", q: "ANN", want: "ann@x.io anna@x.io"},
		{name: "a whole address, trimmed", q: "  Ann@X.io ", want: "ann@x.io"},
		{name: "a prefix folded as sign-up folds (full-width z)", q: "Ｚo", want: "zoe@x.io"},
		{name: "an id finds its account", q: "u2", want: "anna@x.io"},
		{name: "an id before a prefix", q: "ben", want: "bob@x.io"},
		{name: "an underscore is no wildcard", q: "an_", want: "an_x@x.io"},
		{name: "a percent sign is no wildcard", q: "%", want: ""},
		{name: "nothing found is an empty list", q: "nobody", want: ""},
		{name: "empty", q: "  ", kind: core.KindInvalid},
		{name: "longer than an e-mail", q: strings.Repeat("a", accounts.MaxEmail+1), kind: core.KindInvalid},
		{name: "far longer, refused before folding", q: strings.Repeat("ｚ", 4*accounts.MaxEmail), kind: core.KindInvalid},
		{name: "a control character", q: "ann\x00", kind: core.KindInvalid},
		{name: "invalid UTF-8", q: "ann\xff", kind: core.KindInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			as, next, err := f.svc.Search(ctx, tc.q, core.Page{Limit: 10})
			if tc.kind != 0 {
				coretest.WantErr(t, err, tc.kind, "invalid_request")
				return
			}
			if err != nil || as == nil || next != "" {
				t.Fatalf("got %v %q %v", as, next, err)
			}
			got := []string{}
			for _, a := range as {
				got = append(got, a.Email)
			}
			if strings.Join(got, " ") != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
	t.Run("a page at a time, at most MaxSearchPage", func(t *testing.T) {
		for i := range accounts.MaxSearchPage + 1 {
			if err := f.repo.Create(ctx, accounts.Account{ID: fmt.Sprintf("p%03d", i), Email: fmt.Sprintf("p%03d@x.io", i)}); err != nil {
				t.Fatal(err)
			}
		}
		for _, limit := range []int{0, accounts.MaxSearchPage + 1, core.MaxPageLimit} {
			as, next, err := f.svc.Search(ctx, "p", core.Page{Limit: limit})
			if err != nil || len(as) != accounts.MaxSearchPage || next == "" {
				t.Fatalf("limit %d: %d accounts, next %q, %v", limit, len(as), next, err)
			}
			rest, last, err := f.svc.Search(ctx, "p", core.Page{Limit: limit, Cursor: next})
			if err != nil || len(rest) != 1 || rest[0].Email != "p100@x.io" || last != "" {
				t.Fatalf("limit %d: then %v %q %v", limit, rest, last, err)
			}
		}
		_, _, err := f.svc.Search(ctx, "p", core.Page{Limit: 10, Cursor: "forged"})
		coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
	})
}

func TestEmailsNamesTheUsersThatExist(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	annID, _ := f.verified(t, "ann@x.io")
	got, err := f.svc.Emails(ctx, []string{annID, "", "ghost", annID})
	if err != nil || len(got) != 1 || got[annID] != "ann@x.io" {
		t.Fatalf("got %v %v", got, err)
	}
	if got, err := f.svc.Emails(ctx, nil); err != nil || got == nil || len(got) != 0 {
		t.Fatalf("no ids: %v %v", got, err)
	}
	many := make([]string, core.MaxPageLimit+1)
	for i := range many {
		many[i] = fmt.Sprint("u", i)
	}
	_, err = f.svc.Emails(ctx, many)
	coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
}

func TestLoginAdminRules(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, email, password string
		grant                 bool
		wantKind              core.Kind
		wantCode              string
	}{
		{name: "a configured administrator", email: "boss@x.io", password: "password1"},
		{name: "a granted administrator", email: "ann@x.io", password: "password1", grant: true},
		{name: "a user who is no administrator", email: "ann@x.io", password: "password1", wantKind: core.KindForbidden, wantCode: "forbidden"},
		{name: "a wrong password", email: "boss@x.io", password: "password2", wantKind: core.KindUnauthorized, wantCode: "invalid_credentials"},
		{name: "an unknown e-mail", email: "ghost@x.io", password: "password1", wantKind: core.KindUnauthorized, wantCode: "invalid_credentials"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			f := newFixture(t)
			f.verified(t, "boss@x.io")
			annID, _ := f.verified(t, "ann@x.io")
			if tc.grant {
				if err := f.svc.SetAdmin(ctx, "ann@x.io", true); err != nil {
					t.Fatal(err)
				}
			}
			before, _ := f.svc.Sessions(ctx, annID)
			p, token, err := f.svc.LoginAdmin(ctx, tc.email, tc.password, cl)
			if tc.wantKind != 0 {
				coretest.WantErr(t, err, tc.wantKind, tc.wantCode)
				if after, _ := f.svc.Sessions(ctx, annID); token != "" || len(after) != len(before) {
					t.Fatalf("a refused sign-in got a session: %q, %d sessions", token, len(after))
				}
				return
			}
			got, aerr := f.svc.AuthenticateConsole(ctx, token)
			if err != nil || aerr != nil || !p.Admin || got != p || !strings.HasPrefix(token, accounts.ConsolePrefix) {
				t.Fatalf("got %+v %v, authenticates as %+v %v", p, err, got, aerr)
			}
		})
	}
}

// A console session and an app token never open each other's door, and a
// console session ends after ConsoleTTL.
func TestConsoleSessionsAndAppTokensAreApart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	f.verified(t, "boss@x.io")
	_, console, err := f.svc.LoginAdmin(ctx, "boss@x.io", "password1", cl)
	if err != nil {
		t.Fatal(err)
	}
	_, app, err := f.svc.Login(ctx, "boss@x.io", "password1", cl)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.svc.Authenticate(ctx, console)
	coretest.WantErr(t, err, core.KindUnauthorized, "unauthorized")
	_, err = f.svc.AuthenticateConsole(ctx, app)
	coretest.WantErr(t, err, core.KindUnauthorized, "unauthorized")
	if _, err := f.svc.Authenticate(ctx, app); err != nil {
		t.Fatalf("the app token: %v", err)
	}
	f.clock.Advance(accounts.ConsoleTTL)
	_, err = f.svc.AuthenticateConsole(ctx, console)
	coretest.WantErr(t, err, core.KindUnauthorized, "unauthorized")
}

// The console counts its own sign-ins: a stranger's failed API logins for
// an administrator's e-mail never lock the console (nor the reverse), and
// the console's own failures lock it per (e-mail, client IP).
func TestLoginAdminHasItsOwnAttemptCounter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	f.verified(t, "boss@x.io")
	for i := range 110 {
		stranger := accounts.Client{IP: fmt.Sprintf("203.0.113.%d", i/10)}
		_, _, err := f.svc.Login(ctx, "boss@x.io", "wrong-one", stranger)
		if !core.IsKind(err, core.KindUnauthorized) && !core.IsKind(err, core.KindRateLimited) {
			t.Fatalf("login %d: %v", i, err)
		}
	}
	if _, _, err := f.svc.LoginAdmin(ctx, "boss@x.io", "password1", cl); err != nil {
		t.Fatalf("the console is locked by API failures: %v", err)
	}
	for range 10 {
		_, _, err := f.svc.LoginAdmin(ctx, "boss@x.io", "wrong-one", cl)
		coretest.WantErr(t, err, core.KindUnauthorized, "invalid_credentials")
	}
	_, _, err := f.svc.LoginAdmin(ctx, "boss@x.io", "password1", cl)
	coretest.WantErr(t, err, core.KindRateLimited, "rate_limited")
	if _, _, err := f.svc.LoginAdmin(ctx, "boss@x.io", "password1", accounts.Client{IP: "192.0.2.99"}); err != nil {
		t.Fatalf("the owner from another address: %v", err)
	}
}

func TestProfileAndDeletion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	id, tok := f.verified(t, "a@x.io")
	name, tz, bad := " Ann ", "Europe/Paris", "Mars/Olympus"
	a, err := f.svc.UpdateProfile(ctx, id, accounts.ProfilePatch{DisplayName: &name, Timezone: &tz})
	if err != nil || a.DisplayName != "Ann" || a.Timezone != tz {
		t.Fatalf("%+v %v", a, err)
	}
	_, err = f.svc.UpdateProfile(ctx, id, accounts.ProfilePatch{Timezone: &bad})
	coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
	loc, _ := f.svc.Location(ctx, id)
	if loc.String() != tz {
		t.Fatalf("location %s", loc)
	}

	owner := &recordingOwner{}
	f.svc.AddDataOwners(owner)
	if err := f.svc.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	if owner.purged != id {
		t.Fatal("owners purge the user's data")
	}
	_, err = f.svc.Authenticate(ctx, tok)
	coretest.WantErr(t, err, core.KindUnauthorized, "unauthorized")
	if ev := f.bus.All(); len(ev) != 3 || ev[0] != (core.WaysInEnded{UserID: id, At: f.clock.Now(), Unproven: true}) ||
		ev[2] != (core.AccountDeleted{UserID: id}) {
		t.Fatalf("events %v", ev)
	}
}

// TestTimezoneChangeIsPublished: a profile update that changes the timezone
// publishes TimezoneChanged (modules that keep local times recompute them);
// one that keeps it, or is refused, publishes nothing.
func TestTimezoneChangeIsPublished(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	id, _ := f.verified(t, "a@x.io")
	str := func(s string) *string { return &s }
	cases := []struct {
		name  string
		patch accounts.ProfilePatch
		want  []core.Event
	}{
		{"set", accounts.ProfilePatch{Timezone: str("Europe/Berlin")}, []core.Event{core.TimezoneChanged{UserID: id, Timezone: "Europe/Berlin"}}},
		{"the same again", accounts.ProfilePatch{Timezone: str("Europe/Berlin"), DisplayName: str("Ann")}, nil},
		{"name only", accounts.ProfilePatch{DisplayName: str("Anna")}, nil},
		{"refused", accounts.ProfilePatch{Timezone: str("Mars/Olympus")}, nil},
		{"another", accounts.ProfilePatch{Timezone: str("America/New_York")}, []core.Event{core.TimezoneChanged{UserID: id, Timezone: "America/New_York"}}},
		{"back to UTC", accounts.ProfilePatch{Timezone: str("")}, []core.Event{core.TimezoneChanged{UserID: id}}},
	}
	for _, tc := range cases {
		before := len(f.bus.All())
		_, _ = f.svc.UpdateProfile(ctx, id, tc.patch)
		if got := f.bus.All()[before:]; fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Fatalf("%s: events %v, want %v", tc.name, got, tc.want)
		}
	}
}

type recordingOwner struct{ purged string }

func (*recordingOwner) Section() string                                 { return "test" }
func (*recordingOwner) ExportUser(context.Context, string) (any, error) { return nil, nil }
func (o *recordingOwner) PurgeUser(_ context.Context, userID string) error {
	o.purged = userID
	return nil
}

// plainHasher keeps rule tests fast; the argon2id adapter has its own tests.
type plainHasher struct{}

func (plainHasher) Hash(p string) (string, error)    { return "plain:" + p, nil }
func (plainHasher) Verify(h, p string) (bool, error) { return h == "plain:"+p, nil }
func (plainHasher) Decoy() (string, error)           { return "decoy", nil }

type mapCache struct {
	mu sync.Mutex
	m  map[string]accounts.Session
}

func (c *mapCache) Get(h string) (accounts.Session, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.m[h]
	return s, ok
}
func (c *mapCache) Put(h string, s accounts.Session) { c.mu.Lock(); c.m[h] = s; c.mu.Unlock() }
func (c *mapCache) Forget(hs ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, h := range hs {
		delete(c.m, h)
	}
}

// outbox is the mailbox: it records what the Sender sends, and runs the
// Sender's pass (deliver) before each read.
type outbox struct {
	mu      sync.Mutex
	mails   []accounts.Mail
	fail    error // Send's answer while set
	deliver func()
}

func (o *outbox) Send(_ context.Context, m accounts.Mail) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.fail != nil {
		return o.fail
	}
	o.mails = append(o.mails, m)
	return nil
}

func (o *outbox) failWith(err error) {
	o.mu.Lock()
	o.fail = err
	o.mu.Unlock()
}

func (o *outbox) all() []accounts.Mail {
	if o.deliver != nil {
		o.deliver()
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]accounts.Mail(nil), o.mails...)
}

var sixDigits = regexp.MustCompile(`\b\d{6}\b`)

func (o *outbox) code(t *testing.T, to string) string {
	t.Helper()
	all := o.all()
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].To == to {
			return sixDigits.FindString(all[i].Text)
		}
	}
	t.Fatalf("no mail to %s", to)
	return ""
}

// cl is the client of every request in these tests.
var cl = accounts.Client{IP: "198.51.100.7", UserAgent: "tandem-test/1.0"}
