package accounts

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"tandem/core"
)

// The ways in to an account are its sessions, its password, its linked
// providers and its passkeys. Proving the mailbox is what makes an owner,
// and each proof ends whatever came before it: the first verification by
// code, a verified provider's take-over of a pending account and a
// completed reset end every session (but the one they open), every linked
// provider and every passkey. "Log out everywhere" does the same, the
// owner's panic button. Adding a way in needs a recent sign-in
// (core.ReauthWindow) and is mailed to the owner.

// Removed is what ending an account's earlier ways in took away.
type Removed struct {
	Sessions  []string // the hashes of the revoked tokens
	Providers []string // the providers unlinked
	Passkeys  int      // how many passkeys went
}

// Add joins what another step removed.
func (r *Removed) Add(o Removed) {
	r.Sessions = append(r.Sessions, o.Sessions...)
	r.Providers = append(r.Providers, o.Providers...)
	r.Passkeys += o.Passkeys
}

func (r Removed) empty() bool {
	return len(r.Sessions) == 0 && len(r.Providers) == 0 && r.Passkeys == 0
}

// WayIn names one way in a user removes: a linked provider, or a passkey
// by its id.
type WayIn struct{ Provider, Passkey string }

// WayDecision decides on the account, its identities and the ids of its
// passkeys, as loaded and held in the transaction that removes the way.
type WayDecision func(a Account, ids []Identity, passkeys []string) error

// DecideRemoveWay lets a way in go while another remains: a password, a
// linked provider or a passkey. The way must be the account's (404
// not_found for a provider, passkey_not_found for a passkey, another
// user's included); the last one is 409 last_signin_method. One decision
// on everything the account holds, under one lock: two removals at once
// cannot both take the last two.
func DecideRemoveWay(w WayIn) WayDecision {
	return func(a Account, ids []Identity, passkeys []string) error {
		if w.Passkey != "" && !slices.Contains(passkeys, w.Passkey) {
			return errPasskeyNotFound()
		}
		if w.Passkey == "" && !slices.ContainsFunc(ids, func(id Identity) bool { return id.Provider == w.Provider }) {
			return errNotLinked()
		}
		left := len(ids) + len(passkeys) - 1
		if a.PasswordHash != "" {
			left++
		}
		if left == 0 {
			return core.Conflict("last_signin_method", "accounts.accountLastWaySignAdd", "this is the account's last way to sign in; add another first")
		}
		return nil
	}
}

func errPasskeyNotFound() error {
	return core.NotFound("passkey_not_found", "accounts.noSuchPasskey", "no such passkey")
}

// EndReason says which proof (or panic button) ended the ways in: the
// mail tells the owner.
type EndReason string

const (
	EndVerified EndReason = "verified" // the first verification by code
	EndTakeOver EndReason = "takeover" // a verified provider took over a pending account
	EndReset    EndReason = "reset"    // a completed password reset
	EndLogout   EndReason = "logout"   // log out everywhere
)

// afterEnding finishes a proof or the panic button once it committed: the
// revoked tokens are forgotten on every process (their live streams end
// with revoked), the modules are told (pairing requests made before go;
// a partnership made while the account had no proven owner ends), and the
// owner is mailed what went. Nothing here undoes the commit: a failure is
// the caller's to log, not to answer.
func (s *Service) afterEnding(ctx context.Context, a Account, r Removed, why EndReason, unproven bool) error {
	s.cache.Forget(r.Sessions...)
	if len(r.Providers) > 0 {
		s.wakeRevoker() // the unlinked identities' grants were queued
	}
	s.bus.Publish(ctx, core.WaysInEnded{UserID: a.ID, At: s.clock.Now(), Unproven: unproven})
	if r.empty() {
		return nil
	}
	return s.notice(ctx, a, endedMail(s.texts, a, r, why))
}

// LogoutEverywhere is the panic button: every session ends, every linked
// provider and passkey goes (the mailbox and the password remain the ways
// back), and the owner is mailed what went.
func (s *Service) LogoutEverywhere(ctx context.Context, userID string) error {
	a, err := s.account(ctx, userID)
	if err != nil {
		return err
	}
	r, err := s.endWaysIn(ctx, a)
	if err != nil {
		return err
	}
	return s.afterEnding(ctx, a, r, EndLogout, false)
}

// WayInAdded tells the owner that a way in was added to the account
// (method: MethodPassword, a provider, MethodPasskey), by mail and in a
// notification, so that one planted by someone else is seen.
func (s *Service) WayInAdded(ctx context.Context, userID, method string) error {
	a, err := s.account(ctx, userID)
	if err != nil {
		return err
	}
	if s.notifier != nil { // logged by the notifier, never failing the addition
		_ = s.notifier.Notify(ctx, userID, "systemUpdates", core.Msg("notice.wayin."+method))
	}
	return s.notice(ctx, a, Mail{To: a.Email, Subject: s.texts.Translate(a.Locale, core.Msg("mail.wayin.subject")),
		Text: s.texts.Translate(a.Locale, core.Msg("mail.wayin.body."+method))})
}

// RemovePasskey removes one of the user's passkeys (the passkeys module
// asks): the same decision as unlinking a provider (DecideRemoveWay).
func (s *Service) RemovePasskey(ctx context.Context, userID, id string) error {
	if strings.TrimSpace(id) == "" {
		return errPasskeyNotFound()
	}
	return s.removeWay(ctx, userID, WayIn{Passkey: id})
}

// NoticeTTL is how long a notice mail may wait for the relay.
const NoticeTTL = 7 * 24 * time.Hour

// notice queues a mail that carries no code (KindNotice): several may wait
// at once, none replaces another.
func (s *Service) notice(ctx context.Context, a Account, m Mail) error {
	now := s.clock.Now()
	err := s.repo.QueueMail(ctx, OutboxMail{ID: s.ids.New(), UserID: a.ID, Kind: KindNotice, Mail: m,
		CreatedAt: now, NotAfter: now.Add(NoticeTTL), NextAttemptAt: now})
	if err != nil {
		return err
	}
	if s.sender != nil {
		s.sender.Wake()
	}
	return nil
}

// providerNames are the providers as their owners write them, in every
// language.
var providerNames = map[string]string{ProviderApple: "Apple", ProviderGoogle: "Google"}

// KindNotice is the outbox kind of a mail that tells, not proves.
const KindNotice Purpose = "notice"

// endedMail lists what a proof or the panic button removed, in the
// account's language.
func endedMail(t core.Translator, a Account, r Removed, why EndReason) Mail {
	tr := func(key string, args ...any) string { return t.Translate(a.Locale, core.Msg(key, args...)) }
	lines := []string{tr("mail.secured.reason." + string(why)), ""}
	if n := len(r.Sessions); n > 0 {
		lines = append(lines, tr("mail.secured.sessions", n))
	}
	if len(r.Providers) > 0 {
		names := make([]string, len(r.Providers))
		for i, p := range r.Providers {
			names[i] = providerNames[p]
		}
		lines = append(lines, tr("mail.secured.providers", strings.Join(names, ", ")))
	}
	if r.Passkeys > 0 {
		lines = append(lines, tr("mail.secured.passkeys", r.Passkeys))
	}
	lines = append(lines, "", tr("mail.secured.footer"))
	return Mail{To: a.Email, Subject: tr("mail.secured.subject"), Text: fmt.Sprintln(strings.Join(lines, "\n"))}
}
