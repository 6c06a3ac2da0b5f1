package accounts

import (
	"context"
	"strings"
	"time"

	"tandem/core"
)

// hitCodeRequest counts a request for a mailed code (sign-up or reset) per
// (e-mail, client IP), under a higher ceiling per e-mail: a stranger's
// requests cannot stop the owner's from another address.
func (s *Service) hitCodeRequest(ctx context.Context, email, clientIP string) error {
	if err := s.limiter.Hit(ctx, ruleCodesPerEmailIP, email+"\x00"+clientIP, "rate_limited"); err != nil {
		return err
	}
	return s.limiter.Hit(ctx, ruleCodesPerEmail, email, "rate_limited")
}

// checkCode applies expiry, attempt limits and matching. Each try is
// counted before the code is compared (Hit-before-work), so a burst of
// concurrent guesses gets at most the limits' answers; the caller spends
// the code on a match (or ProveCode gives the try back).
func (s *Service) checkCode(ctx context.Context, userID string, p Purpose, code, clientIP string) (Code, error) {
	c, err := s.takeTry(ctx, userID, p, clientIP)
	if core.IsKind(err, core.KindNotFound) {
		return Code{}, errInvalidCode()
	}
	if err != nil {
		return Code{}, err
	}
	now := s.clock.Now()
	if !now.Before(c.ExpiresAt) {
		return Code{}, errInvalidCode()
	}
	if c.Attempts > CodeMaxAttempts {
		return Code{}, errTooManyTries(c, now)
	}
	if !codeMatches(c, strings.TrimSpace(code)) {
		return Code{}, errInvalidCode()
	}
	return c, s.giveTryBack(ctx, c, clientIP)
}

// takeTry counts one try at the user's code: first against the client IP's
// own tries at this code (CodeTriesPerIP, refused there without touching
// the code), then against the code's ceiling across every IP
// (TakeCodeAttempt). core.KindNotFound when there is no code.
func (s *Service) takeTry(ctx context.Context, userID string, p Purpose, clientIP string) (Code, error) {
	c, err := s.repo.GetCode(ctx, userID, p)
	if err != nil {
		return Code{}, err
	}
	if err := s.limiter.Hit(ctx, ruleCodeTriesIP, codeTryKey(c, clientIP), "too_many_attempts"); err != nil {
		if e := core.As(err); e.Kind == core.KindRateLimited {
			return Code{}, core.RateLimited(e.Code, "accounts.tooManyWrongCodesRequest", msgTooManyTries, e.RetryAfter)
		}
		return Code{}, err
	}
	var taken Code
	_, err = s.repo.UpdateCode(ctx, userID, p, func(c Code, a Account) (CodeUpdate, error) {
		u, err := CountTry(c, a)
		taken = *u.Code
		return u, err
	})
	return taken, err
}

// codeGone: a code spent or replaced between the check and the write, or
// its account deleted meanwhile, is an invalid code like any other.
func codeGone(err error) error {
	if core.IsKind(err, core.KindNotFound) {
		return errInvalidCode()
	}
	return err
}

// giveTryBack returns a right try to the client IP's count: only wrong
// tries are counted against it (the code's own count gets it back from
// ProveCode, or dies with the code).
func (s *Service) giveTryBack(ctx context.Context, c Code, clientIP string) error {
	return s.limiter.Undo(ctx, ruleCodeTriesIP, codeTryKey(c, clientIP))
}

// codeTryKey is keyed by the code itself: a new code brings new tries.
func codeTryKey(c Code, clientIP string) string { return clip(c.Hash, 16) + "\x00" + clientIP }

func errTooManyTries(c Code, now time.Time) error {
	return core.RateLimited("too_many_attempts", "accounts.tooManyWrongCodesRequest", msgTooManyTries, c.ExpiresAt.Sub(now))
}

const msgTooManyTries = "too many wrong codes; request a new one"

// sendCode stores a new code and queues its mail in one transaction, then
// wakes the Sender: the request never waits for the relay, and a relay that
// is down delays the mail, not the answer. The mail can never outlive the
// code: it is dropped unsent at the code's expiry.
func (s *Service) sendCode(ctx context.Context, a Account, p Purpose) error {
	code := newCode()
	now := s.clock.Now()
	c := Code{UserID: a.ID, Purpose: p, Hash: hashCode(a.ID, p, code), ExpiresAt: now.Add(CodeTTL), CreatedAt: now}
	m := OutboxMail{ID: s.ids.New(), UserID: a.ID, Kind: p, Mail: s.codeMail(a, p, code),
		CreatedAt: now, NotAfter: c.ExpiresAt, NextAttemptAt: now}
	if err := s.repo.PutCode(ctx, c, m); err != nil {
		return err
	}
	if s.sender != nil {
		s.sender.Wake()
	}
	return nil
}

// codeMail is the mail of a code, written in the account's language (the
// catalogs' mail.verification and mail.reset: the code, then its lifetime
// in minutes).
func (s *Service) codeMail(a Account, p Purpose, code string) Mail {
	key := "mail.verification"
	if p == PurposeReset {
		key = "mail.reset"
	}
	minutes := int(CodeTTL / time.Minute)
	return Mail{To: a.Email, Subject: s.texts.Translate(a.Locale, core.Msg(key+".subject")),
		Text: s.texts.Translate(a.Locale, core.Msg(key+".body", code, minutes))}
}
