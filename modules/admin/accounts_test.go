package admin_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/admin"
)

// people is a recording fake of admin.Accounts.
type people struct {
	byID   map[string]admin.Account
	writes []string
}

func newPeople() *people {
	at := time.UnixMilli(1700000000000)
	return &people{byID: map[string]admin.Account{
		"u-ann":  {ID: "u-ann", Email: "ann@x.io", Verified: true, CreatedAt: at},
		"u-boss": {ID: "u-boss", Email: "boss@x.io", Verified: true, Admin: true, CreatedAt: at},
	}}
}

func (p *people) Account(_ context.Context, userID string) (admin.Account, error) {
	a, ok := p.byID[userID]
	if !ok {
		return admin.Account{}, core.NotFound("user_not_found", "admin.userNotFound", "user not found")
	}
	return a, nil
}

func (p *people) AccountByEmail(_ context.Context, email string) (admin.Account, error) {
	if !strings.Contains(email, "@") {
		return admin.Account{}, core.Invalid("invalid_request", "admin.notMail", "not an e-mail")
	}
	for _, a := range p.byID {
		if strings.EqualFold(a.Email, strings.TrimSpace(email)) {
			return a, nil
		}
	}
	return admin.Account{}, core.NotFound("user_not_found", "admin.userNotFound", "user not found")
}

func (p *people) Sessions(context.Context, string) ([]admin.Session, error) {
	return []admin.Session{{ID: "s1", UserAgent: "phone", CreatedAt: time.UnixMilli(1700000000001)}}, nil
}

func (p *people) DeleteSession(_ context.Context, userID, sessionID string) error {
	p.writes = append(p.writes, "revoke "+userID+" "+sessionID)
	return nil
}

func (p *people) Delete(_ context.Context, userID string) error {
	p.writes = append(p.writes, "delete "+userID)
	return nil
}

func (p *people) SetAdmin(ctx context.Context, email string, grant bool) error {
	p.writes = append(p.writes, "grant "+email)
	_, err := p.AccountByEmail(ctx, email)
	return err
}

func (p *people) Logout(_ context.Context, userID, token string) error {
	p.writes = append(p.writes, "logout "+userID+" "+token)
	return nil
}

func (p *people) SetBlocked(_ context.Context, userID string, blocked bool) error {
	if blocked {
		p.writes = append(p.writes, "block "+userID)
	} else {
		p.writes = append(p.writes, "unblock "+userID)
	}
	return nil
}

func (p *people) EndSessions(_ context.Context, userID string) error {
	p.writes = append(p.writes, "end sessions "+userID)
	return nil
}

func (p *people) MarkVerified(_ context.Context, userID string) error {
	p.writes = append(p.writes, "verify "+userID)
	if p.byID[userID].Verified {
		return core.Conflict("already_verified", "admin.mailAlreadyVerified", "the e-mail is already verified")
	}
	return nil
}

func (p *people) StartReset(_ context.Context, userID string) error {
	p.writes = append(p.writes, "reset "+userID)
	return nil
}

func TestAuditedAccountsRecordEveryChange(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		change     func(ctx context.Context, a *admin.AuditedAccounts) error
		wantKind   core.Kind
		wantEntry  string // "": none
		wantWrites []string
	}{
		{name: "a grant: the stored grant before and after",
			change:     func(ctx context.Context, a *admin.AuditedAccounts) error { return a.SetAdmin(ctx, " ANN@x.io", true) },
			wantEntry:  `admin.grant user:u-ann done {"admin":false,"email":"ann@x.io"} {"admin":true,"email":"ann@x.io"}`,
			wantWrites: []string{"grant  ANN@x.io"}},
		{name: "a grant to nobody is a failed attempt on the e-mail",
			change: func(ctx context.Context, a *admin.AuditedAccounts) error {
				return a.SetAdmin(ctx, "Ghost@x.io ", false)
			},
			wantKind:   core.KindNotFound,
			wantEntry:  `admin.revoke email:ghost@x.io failed null null`,
			wantWrites: []string{"grant Ghost@x.io "}},
		{name: "a session revoked: the session before, never its token",
			change: func(ctx context.Context, a *admin.AuditedAccounts) error {
				_, err := a.RevokeSession(ctx, "u-ann", "s1")
				return err
			},
			wantEntry:  `session.revoke user:u-ann done {"id":"s1","userId":"u-ann","userAgent":"phone","createdAt":1700000000001} null`,
			wantWrites: []string{"revoke u-ann s1"}},
		{name: "a session of nobody: refused before anything is recorded",
			change: func(ctx context.Context, a *admin.AuditedAccounts) error {
				_, err := a.RevokeSession(ctx, "u-ghost", "s1")
				return err
			},
			wantKind: core.KindNotFound},
		{name: "an account deleted once its e-mail is typed again",
			change: func(ctx context.Context, a *admin.AuditedAccounts) error {
				_, err := a.Delete(ctx, "u-ann", " ANN@x.io ")
				return err
			},
			wantEntry:  `account.delete user:u-ann done {"createdAt":1700000000000,"email":"ann@x.io","id":"u-ann","verified":true} null`,
			wantWrites: []string{"delete u-ann"}},
		{name: "another e-mail typed: refused, nothing recorded",
			change: func(ctx context.Context, a *admin.AuditedAccounts) error {
				_, err := a.Delete(ctx, "u-ann", "boss@x.io")
				return err
			},
			wantKind: core.KindInvalid},
		{name: "an administrator's account: refused, nothing recorded",
			change: func(ctx context.Context, a *admin.AuditedAccounts) error {
				_, err := a.Delete(ctx, "u-boss", "boss@x.io")
				return err
			},
			wantKind: core.KindForbidden},
		{name: "a sign-out ends the session",
			change:     func(ctx context.Context, a *admin.AuditedAccounts) error { return a.SignOut(ctx, "tok") },
			wantEntry:  `console.signout user:u-boss done null null`,
			wantWrites: []string{"logout u-boss tok"}},
		{name: "a sign-in is recorded with the client",
			change: func(_ context.Context, a *admin.AuditedAccounts) error {
				p := core.Principal{UserID: "u-boss", Email: "boss@x.io", Admin: true}
				return a.SignedIn(context.Background(), p, "tok", "203.0.113.9", "admin console; Firefox")
			},
			wantEntry: `console.signin user:u-boss done null {"ip":"203.0.113.9","userAgent":"admin console; Firefox"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			log, repo := newLog()
			ppl := newPeople()
			expectOutcome(t, tc.change(bossCtx, admin.NewAuditedAccounts(log, ppl)), tc.wantKind, repo, tc.wantEntry)
			if !slices.Equal(ppl.writes, tc.wantWrites) {
				t.Fatalf("writes %q, want %q", ppl.writes, tc.wantWrites)
			}
		})
	}
}

func TestAuditedAccountsNeedAnAdministrator(t *testing.T) {
	t.Parallel()
	log, repo := newLog()
	ppl := newPeople()
	a := admin.NewAuditedAccounts(log, ppl)
	if err := a.SetAdmin(annCtx, "ann@x.io", true); !core.IsKind(err, core.KindForbidden) {
		t.Fatalf("grant: %v", err)
	}
	if _, err := a.Delete(annCtx, "u-ann", "ann@x.io"); !core.IsKind(err, core.KindForbidden) {
		t.Fatalf("delete: %v", err)
	}
	if _, err := a.RevokeSession(context.Background(), "u-ann", "s1"); !core.IsKind(err, core.KindForbidden) {
		t.Fatalf("revoke: %v", err)
	}
	if got := entries(t, repo); len(got) != 0 || len(ppl.writes) != 0 {
		t.Fatalf("entries %q, writes %q", got, ppl.writes)
	}
}

// A session whose sign-in cannot be recorded is ended at once.
func TestSignedInWithoutItsEntryEndsTheSession(t *testing.T) {
	t.Parallel()
	ppl := newPeople()
	log := admin.NewService(failingLog{}, &fixedStats{}, coretest.NewClock(time.Time{}), &coretest.SeqIDs{})
	a := admin.NewAuditedAccounts(log, ppl)
	p := core.Principal{UserID: "u-boss", Email: "boss@x.io", Admin: true}
	if err := a.SignedIn(context.Background(), p, "tok", "::1", "ua"); !core.IsKind(err, core.KindUnavailable) {
		t.Fatalf("err %v", err)
	}
	if !slices.Equal(ppl.writes, []string{"logout u-boss tok"}) {
		t.Fatalf("writes %q", ppl.writes)
	}
}

func TestSignInRefusedRecordsTheReason(t *testing.T) {
	t.Parallel()
	busy := core.Unavailable("busy", "admin.tooManyPasswordChecks", "too many password checks")
	busy.RetryAfter = time.Second
	cases := []struct {
		refusal error
		want    string // "": not recorded
	}{
		{core.Unauthorized("invalid_credentials", "admin.x", "x"), "wrong_credentials"},
		{core.Forbidden("forbidden", "admin.x", "x"), "not_administrator"},
		{core.RateLimited("too_many_attempts", "admin.x", "x", time.Minute), "rate_limited"},
		{core.Invalid("invalid_request", "admin.x", "x"), "incomplete"},
		{core.Conflict("conflict", "admin.x", "x"), "refused"},
		{busy, ""},
	}
	for _, tc := range cases {
		log, repo := newLog()
		if err := log.SignInRefused(context.Background(), "a@x.io", "::1", tc.refusal); err != nil {
			t.Fatal(err)
		}
		es, _, _ := repo.List(context.Background(), core.Page{})
		switch {
		case tc.want == "" && len(es) != 0:
			t.Errorf("%v: recorded %+v", tc.refusal, es)
		case tc.want != "" && (len(es) != 1 || es[0].After != `{"ip":"::1","reason":"`+tc.want+`"}`):
			t.Errorf("%v: entries %+v, want reason %s", tc.refusal, es, tc.want)
		}
	}
}
