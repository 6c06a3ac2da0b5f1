package admin

import (
	"context"
	"strings"
	"time"

	"tandem/core"
)

// Service records console changes and counts the overview.
type Service struct {
	log   AuditLog
	stats Stats
	clock core.Clock
	ids   core.IDs
}

// NewService is a plain constructor, usable without fx.
func NewService(log AuditLog, stats Stats, clock core.Clock, ids core.IDs) *Service {
	return &Service{log: log, stats: stats, clock: clock, ids: ids}
}

// Apply makes a change through apply and records it: the entry (who, what,
// before) is stored first, then apply runs, then the entry gets apply's
// outcome and after-state. A change whose entry cannot be stored is not
// made. The caller is the principal in ctx (an administrator); without one
// nothing happens.
func (s *Service) Apply(ctx context.Context, c Change, apply func(ctx context.Context) (after any, err error)) error {
	p, ok := core.PrincipalFrom(ctx)
	if !ok || !p.Admin {
		return core.Forbidden("forbidden", "admin.administratorsOnly", "administrators only")
	}
	before, err := toJSON(c.Before)
	if err != nil {
		return err
	}
	e := Entry{ID: s.ids.New(), ActorID: p.UserID, Actor: clip(p.Email, MaxField), Action: clip(strings.TrimSpace(c.Action), MaxField),
		Target: clip(strings.TrimSpace(c.Target), MaxField), Before: before, After: "null", Outcome: OutcomePending, At: s.clock.Now()}
	if err := s.log.Append(ctx, e); err != nil {
		return err
	}
	result, applyErr := apply(ctx)
	outcome, after := OutcomeDone, "null"
	if applyErr != nil {
		outcome = OutcomeFailed
	} else if after, err = toJSON(result); err != nil {
		after = "null"
	}
	// A request cancelled after the change still completes its entry.
	if err := s.log.Complete(context.WithoutCancel(ctx), e.ID, outcome, after); err != nil && applyErr == nil {
		return err
	}
	return applyErr
}

// Audit lists the entries newest first, and the next page's cursor.
func (s *Service) Audit(ctx context.Context, page core.Page) ([]Entry, string, error) {
	es, next, err := s.log.List(ctx, page)
	if err != nil {
		return nil, "", err
	}
	if es == nil {
		es = []Entry{}
	}
	return es, next, nil
}

// Overview counts users, couples, active premium and today's uploads (the
// day in UTC).
func (s *Service) Overview(ctx context.Context) (Overview, error) {
	now := s.clock.Now().UTC()
	return s.stats.Overview(ctx, now, time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC))
}

// CLIActor is the actor recorded for changes made with the tandem command
// on the host (tandem admin ...): it has no account, and whoever can run it
// already holds the database.
const CLIActor = "cli"

// AsCLI is ctx with the command line as the acting administrator, so that
// its changes go through Apply and the audit log like the console's.
func AsCLI(ctx context.Context) context.Context {
	return core.WithPrincipal(ctx, core.Principal{Email: CLIActor, Admin: true})
}

// Anonymous is the actor of an entry made by someone not signed in: a
// refused console sign-in. The e-mail typed is not who acted: anyone can
// type any address.
const Anonymous = "anonymous"

// ActionSignInFailed is the action of a refused console sign-in.
const ActionSignInFailed = "console.signin_failed"

// SignInFailure is a refused console sign-in: the e-mail as typed, the
// client's address and why (e.g. "wrong_credentials"). It has no field
// for the password, which is never recorded.
type SignInFailure struct {
	Email  string
	IP     string
	Reason string
}

// SignInFailed records a refused console sign-in as one complete entry,
// outcome failed: the target is the e-mail as typed (made valid UTF-8 and
// clipped), the after-state the client's address and the reason. Nobody is
// signed in, so it needs no principal; the caller bounds how often it runs
// (the sign-in's per-IP budget).
func (s *Service) SignInFailed(ctx context.Context, f SignInFailure) error {
	after, err := toJSON(map[string]string{"ip": clip(f.IP, MaxField), "reason": clip(f.Reason, MaxField)})
	if err != nil {
		return err
	}
	return s.log.Append(ctx, Entry{ID: s.ids.New(), Actor: Anonymous, Action: ActionSignInFailed,
		Target: clip("email:"+strings.ToValidUTF8(f.Email, "\uFFFD"), MaxField), Before: "null", After: after,
		Outcome: OutcomeFailed, At: s.clock.Now()})
}

// SignInRefused records a refused console sign-in (SignInFailed) with the
// reason the refusal's kind gives. A sign-in shed because the server was
// busy (core.KindUnavailable) checked no password and is not recorded.
func (s *Service) SignInRefused(ctx context.Context, email, ip string, refusal error) error {
	k := core.KindOf(refusal)
	if k == core.KindUnavailable {
		return nil
	}
	return s.SignInFailed(ctx, SignInFailure{Email: email, IP: ip, Reason: refusalReason(k)})
}

// refusalReason is the reason a refused sign-in is recorded with.
func refusalReason(k core.Kind) string {
	switch k {
	case core.KindUnauthorized:
		return "wrong_credentials" // an unknown e-mail or a wrong password: the same answer, the same reason
	case core.KindForbidden:
		return "not_administrator"
	case core.KindRateLimited:
		return "rate_limited"
	case core.KindInvalid:
		return "incomplete"
	}
	return "refused"
}
