package accounts

import (
	"context"
	"slices"

	"tandem/core"
)

// The feed's profile (issue 47): GET /api/users/user/{userId}, read by its
// owner only (every profile route is the caller's own), keyed by the
// owner's id. Each write that changes what it shows puts it: a PATCH
// (UpdateProfile); a first password (passwordRequired goes, "password"
// joins the methods); a completed reset (a password, and every provider
// and passkey gone); a provider linked to a verified account by a
// sign-in, or unlinked; the first passkey added (FirstPasskeyChanges) and
// the last one removed; log out everywhere (its providers and passkeys
// gone). Not recorded: the writes of an account not verified yet (a
// sign-up again that drops its password, its verification by code or by
// an administrator, a provider's take-over) and its creation: it has no
// session, so no app holds a cursor of its feed, and the verification
// that gives it its first token is the app's first refetch. A password
// changed for another, a session begun or ended, a block or a grant
// change nothing the profile shows.

// profileOf is a's profile as its owner reads it with these ways in.
func profileOf(a Account, ids []Identity, passkeys int) ProfileRead {
	return ProfileRead{Account: a, Methods: SignInMethods(a, ids, passkeys)}
}

// profilePut is the owner's put of rec: a ProfileRead, or a func() any
// called in the write's transaction after it ran.
func profilePut(userID string, rec any) []core.Change {
	return []core.Change{core.Put(userID, core.ChangeProfile, userID, rec)}
}

// waysOf reads what the account's methods are made of besides its
// password: its identities and how many passkeys it holds.
func (s *Service) waysOf(ctx context.Context, userID string) ([]Identity, int, error) {
	ids, err := s.repo.Identities(ctx, userID)
	if err != nil {
		return nil, 0, err
	}
	n, err := s.passkeyCount(ctx, userID)
	return ids, n, err
}

// FirstPasskeyChanges are the feed's changes of the user's first passkey
// (the passkeys module's write): their profile with "passkey" among its
// methods.
func (s *Service) FirstPasskeyChanges(ctx context.Context, userID string) ([]core.Change, error) {
	a, err := s.account(ctx, userID)
	if err != nil {
		return nil, err
	}
	ids, err := s.repo.Identities(ctx, userID)
	if err != nil {
		return nil, err
	}
	return profilePut(userID, profileOf(a, ids, 1)), nil
}

// setPassword sets a's password (Repository.SetPassword), with the feed's
// put of a first one, and returns the revoked token hashes.
func (s *Service) setPassword(ctx context.Context, a Account, hash string, t Token) ([]string, error) {
	var put []core.Change
	if a.PasswordHash == "" {
		ids, n, err := s.waysOf(ctx, a.ID)
		if err != nil {
			return nil, err
		}
		after := a
		after.PasswordHash = hash
		put = profilePut(a.ID, profileOf(after, ids, n))
	}
	var revoked []string
	err := core.WriteWithChanges(ctx, s.bus, put, func(ctx context.Context) (err error) {
		revoked, err = s.repo.SetPassword(ctx, a.ID, hash, s.clock.Now(), t)
		return err
	})
	return revoked, err
}

// spendReset spends the proven reset code (SpendReset) with the feed's put
// of the profile it leaves: the password, and no other way in (EndWaysIn).
func (s *Service) spendReset(ctx context.Context, userID string, spend CodeDecision, hash string) (Removed, error) {
	var after Account // as the write loaded it
	decide := func(c Code, a Account) (CodeUpdate, error) {
		a.PasswordHash, a.Verified = hash, true
		after = a
		return spend(c, a)
	}
	put := profilePut(userID, func() any { return profileOf(after, nil, 0) })
	var removed Removed
	err := core.WriteWithChanges(ctx, s.bus, put, func(ctx context.Context) (err error) {
		removed, err = s.repo.UpdateCode(ctx, userID, PurposeReset, decide)
		return err
	})
	return removed, err
}

// removeWay removes w from the account (DecideRemoveWay) with the feed's
// put of the profile it leaves when its methods change: a provider
// unlinked, the last passkey removed.
func (s *Service) removeWay(ctx context.Context, userID string, w WayIn) error {
	var after *ProfileRead // as the write loaded the account; nil: the methods stay
	decide := DecideRemoveWay(w)
	seen := func(a Account, ids []Identity, passkeys []string) error {
		after = nil
		if err := decide(a, ids, passkeys); err != nil {
			return err
		}
		n := len(passkeys)
		if w.Passkey != "" {
			n--
		}
		if w.Passkey == "" || n == 0 {
			left := slices.DeleteFunc(slices.Clone(ids), func(id Identity) bool { return w.Passkey == "" && id.Provider == w.Provider })
			p := profileOf(a, left, n)
			after = &p
		}
		return nil
	}
	put := profilePut(userID, func() any {
		if after == nil {
			return core.NoChange{}
		}
		return *after
	})
	return core.WriteWithChanges(ctx, s.bus, put, func(ctx context.Context) error {
		return s.repo.RemoveWayIn(ctx, userID, w, seen)
	})
}

// endWaysIn ends every way in of a's but its password (EndWaysIn), with
// the feed's put of the profile it leaves when it had a provider or a
// passkey.
func (s *Service) endWaysIn(ctx context.Context, a Account) (Removed, error) {
	ids, n, err := s.waysOf(ctx, a.ID)
	if err != nil {
		return Removed{}, err
	}
	var put []core.Change
	if len(ids) > 0 || n > 0 {
		put = profilePut(a.ID, profileOf(a, nil, 0))
	}
	var removed Removed
	err = core.WriteWithChanges(ctx, s.bus, put, func(ctx context.Context) (err error) {
		removed, err = s.repo.EndWaysIn(ctx, a.ID)
		return err
	})
	return removed, err
}

// linkChanges are the feed's changes of a sign-in with c: the put of the
// verified account with c's e-mail when the sign-in links c's provider to
// it (a way in added; made, called in the write's transaction after it
// ran, is the update it wrote). A sign-in to a linked identity, a new
// account and a take-over of a pending one put nothing (see above).
func (s *Service) linkChanges(ctx context.Context, c IdentityClaim, made func() SignInUpdate) ([]core.Change, error) {
	if c.Email == "" || !c.EmailVerified {
		return nil, nil
	}
	a, err := s.repo.GetByEmail(ctx, c.Email)
	if core.IsKind(err, core.KindNotFound) || err == nil && !a.Verified {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	ids, n, err := s.waysOf(ctx, a.ID)
	if err != nil {
		return nil, err
	}
	return profilePut(a.ID, func() any {
		u := made()
		if u.Link == nil || u.Create || u.TakeOver || u.Account.ID != a.ID {
			return core.NoChange{}
		}
		return profileOf(u.Account, append(slices.Clone(ids), *u.Link), n)
	}), nil
}
