// Package idempotency keeps the first completed answer of a create request
// per (user, Idempotency-Key), so that a retried request (a lost answer, a
// timeout, a 503 the app cannot tell from a failure) is answered again
// instead of creating a second message, event or memory. The semantics are
// the IETF httpapi draft "The Idempotency-Key HTTP Header Field": the same
// key with the same request replays the answer, with another request it is
// 422, and while the first still runs it is 409.
package idempotency

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"tandem/core"
)

// TTL is how long a completed answer is kept and replayed.
const TTL = 24 * time.Hour

// NewKeysPerMinute and NewKeysPerDay bound the keys one user stores: a
// request with a key no live record holds spends one (a replay, or a 409 or
// 422 about a live key, spends none). A key is kept TTL (a UTC day), so at
// most 2 × NewKeysPerDay are stored for one user at any time, whatever the
// routes that take them answer (4xx answers are kept too). The day's cap is
// above the sum of the create routes' own daily caps.
const (
	NewKeysPerMinute = 120
	NewKeysPerDay    = 2000
)

// DefaultBudget is the budget of new keys unless Settings name another
// (TANDEM_WRITE_BUDGETS).
var DefaultBudget = core.WriteBudget{Kind: "idempotency_keys", PerMinute: NewKeysPerMinute, PerDay: NewKeysPerDay}

// MaxKeyLength bounds a key; longer ones, empty ones and ones with a
// character outside printable ASCII are refused (400 invalid_request).
const MaxKeyLength = 255

// MaxAnswerBytes bounds a stored answer body. Every create answer is a small
// record; a larger one is not kept (the key is still spent: a retry is 409 idempotency_answer_not_kept).
const MaxAnswerBytes = 64 << 10

// State is where a key's request is.
type State string

const (
	// Running: a request holds the key until it answers or its lease ends.
	Running State = "running"
	// Done: the answer is stored and replayed until the record expires.
	Done State = "done"
)

// Answer is what a completed request said, as far as a replay needs it.
type Answer struct {
	Status      int
	ContentType string
	Body        []byte
}

// Record is one key of one user. KeyHash is the SHA-256 of the key, so the
// table holds no client string and keys have one length; ClaimID tells the
// request holding a running key from a later one that took it over after
// the lease ended.
type Record struct {
	UserID      string
	KeyHash     string
	ClaimID     string
	Fingerprint string // SHA-256 of method, path and body; "" while running
	State       State
	Answer      Answer // Done only; a nil Body with Status 0: not kept
	CreatedAt   time.Time
	ExpiresAt   time.Time
}

// Codes of the answers this package gives instead of running a request.
const (
	CodeInProgress = "idempotency_in_progress"     // 409: the first request still runs
	CodeKeyReused  = "idempotency_key_reused"      // 422: the key was used for another request
	CodeNotKept    = "idempotency_answer_not_kept" // 409: it completed, its answer was too large to keep
)

// The refusals of Begin; fresh values, since a core.Error may be wrapped.
func errInProgress() error {
	return core.Conflict(CodeInProgress, "idempotency.requestIdempotencyKeyStillBeing", "a request with this Idempotency-Key is still being processed; retry later")
}

func errKeyReused() error {
	return core.Unprocessable(CodeKeyReused, "idempotency.idempotencyKeyWasUsedDifferent", "this Idempotency-Key was used for a different request")
}

// errNotKept: the first request completed, but its answer was too large to
// keep; it is not run again.
func errNotKept() error {
	return core.Conflict(CodeNotKept, "idempotency.requestIdempotencyKeyCompletedBut", "a request with this Idempotency-Key completed, but its answer was not kept")
}

// ValidKey checks a key: 1 to 255 printable ASCII characters.
func ValidKey(key string) error {
	if key == "" || len(key) > MaxKeyLength {
		return core.Invalid("invalid_request", "idempotency.idempotencyKey1255Printable", "Idempotency-Key must be 1 to 255 printable ASCII characters")
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return core.Invalid("invalid_request", "idempotency.idempotencyKey1255Printable", "Idempotency-Key must be 1 to 255 printable ASCII characters")
		}
	}
	return nil
}

// HashKey is the stored form of a key.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// Kept reports whether an answer is stored for replay: everything but 5xx
// (released: the request may be run again) and 429 (the caller was turned
// away, not answered), within MaxAnswerBytes.
func Kept(a Answer) (keep, release bool) {
	switch {
	case a.Status >= 500 || a.Status == 429 || a.Status == 408:
		return false, true
	case len(a.Body) > MaxAnswerBytes:
		return false, false
	}
	return true, false
}
