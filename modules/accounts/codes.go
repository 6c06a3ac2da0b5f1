package accounts

import "time"

// The rules of a one-time code's life after it is mailed: each try counted,
// a reset code proven, a code spent. Each is a decision on the code and its
// account as Repository.UpdateCode loads them inside the transaction that
// writes the outcome, so a code replaced or spent by a concurrent request is
// seen, and a code is spent once.

// CodeDecision decides on the user's code and account, as loaded and locked.
type CodeDecision func(Code, Account) (CodeUpdate, error)

// CodeUpdate is what a CodeDecision writes, in this order; the zero update
// writes nothing.
type CodeUpdate struct {
	// Code is stored in place of the loaded code (nil: unchanged).
	Code *Code
	// Consume deletes the code: it is spent.
	Consume bool
	// Verify marks the account's e-mail verified.
	Verify bool
	// PasswordHash, when set, becomes the account's password at At, and
	// every token of the account is revoked.
	PasswordHash string
	At           time.Time
	// Token is stored last (after a revocation).
	Token *Token
	// EndWaysIn ends every earlier way in before Token is stored: every
	// token, linked identity and passkey (Repository.EndWaysIn). A proof of
	// the mailbox gives the account its owner, who inherits nothing that
	// came before.
	EndWaysIn bool
}

// CountTry counts one try at the code: the count is the code's ceiling
// across every client, so concurrent guesses each see their own.
func CountTry(c Code, _ Account) (CodeUpdate, error) {
	c.Attempts++
	return CodeUpdate{Code: &c}, nil
}

// ProveReset marks the reset code whose hash is codeHash proven at at (the
// reset step 2) with the hash of the reset token handed out for it, valid
// until expires, and gives back the try that proving it took. A code
// replaced meanwhile: invalid_code.
func ProveReset(codeHash, proofHash string, at, expires time.Time) CodeDecision {
	return func(c Code, _ Account) (CodeUpdate, error) {
		if c.Purpose != PurposeReset || c.Hash != codeHash {
			return CodeUpdate{}, errInvalidCode()
		}
		c.VerifiedAt, c.ProofHash, c.ProofExpiresAt = at, proofHash, expires
		c.Attempts = max(c.Attempts-1, 0)
		return CodeUpdate{Code: &c}, nil
	}
}

// SpendVerification spends the sign-up code whose hash is codeHash: the
// e-mail is verified, every earlier way in ended (CodeUpdate.EndWaysIn) and
// t, the first token, stored. A code spent or replaced meanwhile, or an
// account verified meanwhile: invalid_code (single use).
func SpendVerification(codeHash string, t Token) CodeDecision {
	return func(c Code, a Account) (CodeUpdate, error) {
		if c.Purpose != PurposeVerify || c.Hash != codeHash || a.Verified {
			return CodeUpdate{}, errInvalidCode()
		}
		return CodeUpdate{Consume: true, Verify: true, Token: &t, EndWaysIn: true}, nil
	}
}

// SpendReset spends the proven reset code whose hash is codeHash (the
// service has checked the proof): the password becomes passwordHash at at,
// every earlier way in ends (CodeUpdate.EndWaysIn), t is stored, and the
// e-mail verified (the code proved the mailbox). A code not proven, or
// spent or replaced meanwhile: invalid_code (single use).
func SpendReset(codeHash, passwordHash string, at time.Time, t Token) CodeDecision {
	return func(c Code, _ Account) (CodeUpdate, error) {
		if c.Purpose != PurposeReset || c.VerifiedAt.IsZero() || c.Hash != codeHash {
			return CodeUpdate{}, errResetNotProven()
		}
		return CodeUpdate{Consume: true, Verify: true, PasswordHash: passwordHash, At: at, Token: &t, EndWaysIn: true}, nil
	}
}
