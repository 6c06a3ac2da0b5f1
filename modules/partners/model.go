// Package partners holds the couple: the partnership, connection codes
// (create and link) and the pairing-code flow with mutual confirmation (v1.2).
// A user has at most one partnership, whichever flow made it.
package partners

import (
	"crypto/rand"
	"math/big"
	"strings"
	"time"

	"tandem/core"
)

// Partnership is two users who are partners. UserA invited (owns the linked
// connection code, or submitted first); UserB completed it.
type Partnership struct {
	ID        string
	UserA     string
	UserB     string
	CreatedAt time.Time
}

// PartnerOf is the other member, "" when userID is not a member.
func (p Partnership) PartnerOf(userID string) string {
	switch userID {
	case p.UserA:
		return p.UserB
	case p.UserB:
		return p.UserA
	}
	return ""
}

// Users are both members, inviter first.
func (p Partnership) Users() [2]string { return [2]string{p.UserA, p.UserB} }

// Connection is a user's connection code, chosen by the client; another user
// links with it. A user has at most one; a code belongs to one user.
type Connection struct {
	ID        string
	UserID    string
	Code      string
	CreatedAt time.Time
}

// PairingCode is a user's generated pairing code (one per user).
type PairingCode struct {
	UserID    string
	Code      string
	ExpiresAt time.Time
	CreatedAt time.Time
}

// ValidAt reports whether the code is unexpired at now.
func (c PairingCode) ValidAt(now time.Time) bool { return now.Before(c.ExpiresAt) }

// Request is a pending pairing request: From submitted To's code and waits
// for To to submit From's. A user has at most one outgoing request.
type Request struct {
	From      string
	To        string
	CreatedAt time.Time
}

// State is where a user stands in the pairing flow.
type State string

const (
	StateUnpaired  State = "unpaired"
	StatePending   State = "pending"
	StateConnected State = "connected"
)

// Snapshot is everything the module stores about one user, read at once.
type Snapshot struct {
	Partnership *Partnership // nil when unpaired
	Connection  *Connection  // the user's own connection code
	PairingCode *PairingCode // the user's generated code, expired or not
	Outgoing    *Request     // the user's own request
	Incoming    []Request    // requests waiting for the user, newest first
}

// Status is the pairing status of one user (GET .../pairing).
type Status struct {
	State          State
	MyCode         *PairingCode // only an unexpired code
	PartnerID      string
	IncomingFrom   string // newest waiting request
	OutgoingTo     string
	ActionRequired bool // someone submitted my code and waits for me
}

// statusOf derives userID's pairing status from their snapshot at now.
func statusOf(userID string, s Snapshot, now time.Time) Status {
	if s.Partnership != nil {
		return Status{State: StateConnected, PartnerID: s.Partnership.PartnerOf(userID)}
	}
	var st Status
	if s.PairingCode != nil && s.PairingCode.ValidAt(now) {
		c := *s.PairingCode
		st.MyCode = &c
	}
	if s.Outgoing != nil {
		st.OutgoingTo = s.Outgoing.To
	}
	if len(s.Incoming) > 0 {
		st.IncomingFrom = s.Incoming[0].From
		st.ActionRequired = true
	}
	st.State = StateUnpaired
	if st.OutgoingTo != "" || st.IncomingFrom != "" {
		st.State = StatePending
	}
	return st
}

// Ended is the record of a partnership.ended live event for one former
// partner: the other one.
type Ended struct {
	PartnerID string
}

// SubmitOutcome is the result of a submitted pairing code.
type SubmitOutcome struct {
	Connected bool
	PartnerID string // the owner of the submitted code
	MyCode    string // the caller's own pairing code, when connected
}

// Export is the user's data of this module (account export); nil where the
// user has none.
type Export struct {
	ConnectionCode *string
	PairingCode    *string
	PartnerID      *string
}

const (
	// PairingCodeAlphabet leaves out 0/O and 1/I, which people misread.
	PairingCodeAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	PairingCodeLength   = 6
	PairingCodeTTL      = 24 * time.Hour
	// MinConnectionCode is the shortest new connection code: 8 of 64
	// characters, compared ignoring case, leave a guesser ~2.8e12 codes.
	MinConnectionCode = 8
	// MinStoredConnectionCode is the shortest code the earlier rule let
	// users store; link still accepts those.
	MinStoredConnectionCode = 4
	MaxConnectionCode       = 64
	maxCodeDraws            = 5 // a drawn pairing code taken by someone else is drawn again
)

// ValidateConnectionCode is the rule for a new connection code: 8 to 64
// characters of [A-Za-z0-9_-].
func ValidateConnectionCode(code string) error {
	if !connectionCodeShape(code, MinConnectionCode) {
		return errBadConnectionCode()
	}
	return nil
}

// validateLinkCode admits any code that can be stored, the short ones of the
// earlier 4-character rule included.
func validateLinkCode(code string) error {
	if !connectionCodeShape(code, MinStoredConnectionCode) {
		return errBadLinkCode()
	}
	return nil
}

func connectionCodeShape(code string, minLen int) bool {
	if len(code) < minLen || len(code) > MaxConnectionCode {
		return false
	}
	for i := 0; i < len(code); i++ {
		c := code[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// ConnectionKey is what makes connection codes unique and found: the code
// in lower case, so "OurCode1" and "ourcode1" are one code. The storage keeps
// it beside the code as typed.
func ConnectionKey(code string) string { return strings.ToLower(code) }

// NormalizePairingCode trims and upper-cases what a person typed; ok is false
// when the result cannot be a pairing code. Only ASCII letters change case:
// strings.ToUpper also made "ſ" (long s) an "S", so six characters outside
// the alphabet passed as a code.
func NormalizePairingCode(s string) (string, bool) {
	t := strings.TrimSpace(s)
	if len(t) != PairingCodeLength {
		return "", false
	}
	c := make([]byte, len(t))
	for i := 0; i < len(t); i++ {
		b := t[i]
		if b >= 'a' && b <= 'z' {
			b -= 'a' - 'A'
		}
		if strings.IndexByte(PairingCodeAlphabet, b) < 0 {
			return "", false
		}
		c[i] = b
	}
	return string(c), true
}

// NewPairingCode draws six characters of the alphabet from crypto/rand.
func NewPairingCode() string {
	n := big.NewInt(int64(len(PairingCodeAlphabet)))
	b := make([]byte, PairingCodeLength)
	for i := range b {
		k, err := rand.Int(rand.Reader, n)
		if err != nil {
			panic("partners: crypto/rand failed: " + err.Error())
		}
		b[i] = PairingCodeAlphabet[k.Int64()]
	}
	return string(b)
}

// Settings are the module's configuration (bound in bootstrap).
type Settings struct {
	// FailsPerUser and FailsPerIP bound the failed code attempts (link,
	// create, submit-code) of one user and of one client IP per FailWindow.
	FailsPerUser int
	FailsPerIP   int
}

// FailWindow is the window of the failed-attempt counters.
const FailWindow = time.Hour

// Rate rules of failed code attempts; the names key the stored counters,
// and every flow shares them, so a guesser cannot add up three budgets.
func (s Settings) failRules() (perUser, perIP core.RateRule) {
	return core.RateRule{Name: "pairing_fail_user", Limit: s.FailsPerUser, Window: FailWindow},
		core.RateRule{Name: "pairing_fail_ip", Limit: s.FailsPerIP, Window: FailWindow}
}

// CategoryPartnerActivity is the notification category of "someone linked
// with your code" (the spec's partnerActivity setting).
const CategoryPartnerActivity = "partnerActivity"

// The notification the owner of a connection code gets when someone links
// with it: a forced pairing must not go unnoticed.
const (
	linkedTitle   = "New partner connection"
	linkedMessage = "Someone linked with your connection code and is now your partner. " +
		"If you did not expect this, unlink to end the connection."
)

// The module's errors; codes are the spec's and DESIGN.md's.

func errAlreadyPaired() error {
	return core.Conflict("already_paired", "you are already paired")
}
func errPartnerPaired() error {
	return core.Conflict("already_paired", "that user is already paired")
}
func errNotPaired() error { return core.Conflict("not_paired", "not paired") }
func errInvalidPairingCode() error {
	return core.Invalid("invalid_pairing_code", "invalid or expired pairing code")
}
func errBadConnectionCode() error {
	return core.Invalid("invalid_request",
		"connectionCode must be 8 to 64 characters of A-Z, a-z, 0-9, _ and -, unique ignoring case")
}
func errBadLinkCode() error {
	return core.Invalid("invalid_request", "connectionCode must be 4 to 64 characters of A-Z, a-z, 0-9, _ and -")
}
func errConnectionTaken() error {
	return core.Conflict("conflict", "connection code already taken")
}
func errConnectionNotFound() error {
	return core.NotFound("not_found", "connection code not found")
}
