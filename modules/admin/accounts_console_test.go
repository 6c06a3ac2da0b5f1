package admin_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/admin"
)

// The console's actions on a user's page: each recorded with the state
// before and after; each refusal answered before anything is recorded.
func TestAuditedAccountsConsoleActions(t *testing.T) {
	t.Parallel()
	at := time.UnixMilli(1700000000000)
	cases := []struct {
		name       string
		change     func(ctx context.Context, a *admin.AuditedAccounts) error
		wantKind   core.Kind
		wantEntry  string // "": none
		wantWrites []string
	}{
		{name: "a block", change: act((*admin.AuditedAccounts).Block, "u-ann"),
			wantEntry:  `account.block user:u-ann done {"email":"ann@x.io","verified":true,"blocked":false,"admin":false} {"email":"ann@x.io","verified":true,"blocked":true,"admin":false}`,
			wantWrites: []string{"block u-ann"}},
		{name: "an unblock", change: act((*admin.AuditedAccounts).Unblock, "u-ann"),
			wantEntry:  `account.unblock user:u-ann done {"email":"ann@x.io","verified":true,"blocked":false,"admin":false} {"email":"ann@x.io","verified":true,"blocked":false,"admin":false}`,
			wantWrites: []string{"unblock u-ann"}},
		{name: "one's own account is not blocked", change: act((*admin.AuditedAccounts).Block, "u-boss"), wantKind: core.KindForbidden},
		{name: "an administrator is not blocked", change: act((*admin.AuditedAccounts).Block, "u-cfg"), wantKind: core.KindForbidden},
		{name: "nobody is not found", change: act((*admin.AuditedAccounts).Block, "u-ghost"), wantKind: core.KindNotFound},
		{name: "every session ended, counted", change: act((*admin.AuditedAccounts).EndSessions, "u-ann"),
			wantEntry:  `session.revoke_all user:u-ann done {"email":"ann@x.io","sessions":1} {"sessions":0}`,
			wantWrites: []string{"end sessions u-ann"}},
		{name: "a verification", change: act((*admin.AuditedAccounts).Verify, "u-kim"),
			wantEntry:  `account.verify user:u-kim done {"email":"kim@x.io","verified":false,"blocked":false,"admin":false} {"email":"kim@x.io","verified":true,"blocked":false,"admin":false}`,
			wantWrites: []string{"verify u-kim"}},
		{name: "a verified one again: failed on record", change: act((*admin.AuditedAccounts).Verify, "u-ann"), wantKind: core.KindConflict,
			wantEntry:  `account.verify user:u-ann failed {"email":"ann@x.io","verified":true,"blocked":false,"admin":false} null`,
			wantWrites: []string{"verify u-ann"}},
		{name: "a reset started: the address, never a code", change: act((*admin.AuditedAccounts).StartReset, "u-ann"),
			wantEntry: `password.reset_start user:u-ann done null {"mailedTo":"ann@x.io"}`, wantWrites: []string{"reset u-ann"}},
		{name: "a grant by the user's id", change: act((*admin.AuditedAccounts).Grant, "u-ann"),
			wantEntry:  `admin.grant user:u-ann done {"admin":false,"email":"ann@x.io"} {"admin":true,"email":"ann@x.io"}`,
			wantWrites: []string{"grant ann@x.io"}},
		{name: "a revocation", change: act((*admin.AuditedAccounts).Revoke, "u-two"),
			wantEntry:  `admin.revoke user:u-two done {"admin":true,"email":"two@x.io"} {"admin":false,"email":"two@x.io"}`,
			wantWrites: []string{"grant two@x.io"}},
		{name: "one's own grant is not revoked", change: act((*admin.AuditedAccounts).Revoke, "u-boss"), wantKind: core.KindForbidden},
		{name: "a configured administrator is not revoked", change: act((*admin.AuditedAccounts).Revoke, "u-cfg"), wantKind: core.KindForbidden},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			log, repo := newLog()
			ppl := newPeople()
			ppl.byID["u-kim"] = admin.Account{ID: "u-kim", Email: "kim@x.io", CreatedAt: at}
			ppl.byID["u-two"] = admin.Account{ID: "u-two", Email: "two@x.io", Verified: true, Granted: true, Admin: true, CreatedAt: at}
			ppl.byID["u-cfg"] = admin.Account{ID: "u-cfg", Email: "cfg@x.io", Verified: true, Admin: true, Configured: true, CreatedAt: at}
			expectOutcome(t, tc.change(bossCtx, admin.NewAuditedAccounts(log, ppl)), tc.wantKind, repo, tc.wantEntry)
			if !slices.Equal(ppl.writes, tc.wantWrites) {
				t.Fatalf("writes %q, want %q", ppl.writes, tc.wantWrites)
			}
		})
	}
}

// act makes a table row's change of one of the user-page actions.
func act(f func(*admin.AuditedAccounts, context.Context, string) (admin.Account, error), userID string) func(context.Context, *admin.AuditedAccounts) error {
	return func(ctx context.Context, a *admin.AuditedAccounts) error {
		_, err := f(a, ctx, userID)
		return err
	}
}
