package bootstrap

import (
	"context"

	"go.uber.org/fx"

	"tandem/adapters/httpapi"
	"tandem/adapters/web"
	"tandem/modules/accounts"
	adminmod "tandem/modules/admin"
	"tandem/modules/feedback"
	"tandem/modules/flags"
	"tandem/modules/versions"
)

// audited makes the admin module's audited writes on the modules they
// change, each state recorded as the API renders it, and binds its
// Accounts port: the API, the console and the command line all change
// things through them.
var audited = fx.Provide(
	func(a *accounts.Service) adminmod.Accounts { return adminAccounts{a} },
	func(log *adminmod.Service, f *flags.Service) *web.AuditedFlags {
		return adminmod.NewAuditedFlags(log, f, httpapi.FlagRecord, func(d flags.Draft) string { return d.Key })
	},
	func(log *adminmod.Service, v *versions.Service) *web.AuditedPolicies {
		return adminmod.NewAuditedPolicies(log, v, httpapi.PolicyRecord)
	},
	func(log *adminmod.Service, f *feedback.Service) *web.AuditedFeedback {
		return adminmod.NewAuditedFeedback(log, f, httpapi.FeedbackRecord)
	},
)

// adminAccounts is admin.Accounts on the accounts module.
type adminAccounts struct{ svc *accounts.Service }

func (a adminAccounts) Account(ctx context.Context, userID string) (adminmod.Account, error) {
	return a.view(a.svc.Profile(ctx, userID))
}

func (a adminAccounts) AccountByEmail(ctx context.Context, email string) (adminmod.Account, error) {
	return a.view(a.svc.FindByEmail(ctx, email))
}

func (a adminAccounts) view(acc accounts.Account, err error) (adminmod.Account, error) {
	if err != nil {
		return adminmod.Account{}, err
	}
	return adminmod.Account{ID: acc.ID, Email: acc.Email, Verified: acc.Verified, Granted: acc.Admin, Admin: a.svc.IsAdmin(acc),
		Configured: a.svc.IsConfiguredAdmin(acc), Blocked: acc.Blocked, CreatedAt: acc.CreatedAt}, nil
}

func (a adminAccounts) Sessions(ctx context.Context, userID string) ([]adminmod.Session, error) {
	ts, err := a.svc.Sessions(ctx, userID)
	if err != nil {
		return nil, err
	}
	out := make([]adminmod.Session, len(ts))
	for i, t := range ts {
		out[i] = adminmod.Session{ID: t.ID, UserAgent: t.UserAgent, CreatedAt: t.CreatedAt}
	}
	return out, nil
}

func (a adminAccounts) DeleteSession(ctx context.Context, userID, sessionID string) error {
	return a.svc.DeleteSession(ctx, userID, sessionID)
}

func (a adminAccounts) Delete(ctx context.Context, userID string) error {
	return a.svc.Delete(ctx, userID)
}

func (a adminAccounts) SetAdmin(ctx context.Context, email string, admin bool) error {
	return a.svc.SetAdmin(ctx, email, admin)
}

func (a adminAccounts) Logout(ctx context.Context, userID, token string) error {
	return a.svc.Logout(ctx, userID, token, false)
}

func (a adminAccounts) SetBlocked(ctx context.Context, userID string, blocked bool) error {
	return a.svc.SetBlocked(ctx, userID, blocked)
}

func (a adminAccounts) EndSessions(ctx context.Context, userID string) error {
	return a.svc.EndSessions(ctx, userID)
}

func (a adminAccounts) MarkVerified(ctx context.Context, userID string) error {
	return a.svc.MarkVerified(ctx, userID)
}

func (a adminAccounts) StartReset(ctx context.Context, userID string) error {
	return a.svc.StartReset(ctx, userID)
}
