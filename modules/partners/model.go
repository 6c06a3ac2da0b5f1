// Package partners holds the couple: the partnership, connection codes
// (create and link) and the pairing-code flow with mutual confirmation (v1.2).
// A user has at most one partnership, whichever flow made it.
package partners

import (
	"crypto/rand"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/trustelem/zxcvbn"
	"github.com/trustelem/zxcvbn/match"

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

// Connection is a user's connection code, chosen by the client or drawn by
// the service; another user links with it until ExpiresAt. A user has at most
// one; a code belongs to one user.
type Connection struct {
	ID        string
	UserID    string
	Code      string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// LinkableAt reports whether another user may still link with the code at
// now. An expired code links no one; while its owner is paired it is kept
// (both partners see it), otherwise the purge deletes it.
func (c Connection) LinkableAt(now time.Time) bool { return now.Before(c.ExpiresAt) }

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

	// DefaultConnectionCodeTTL is how long a new connection code links
	// (TANDEM_CONNECTION_CODE_TTL); migration 00034 gave the codes stored
	// before it their creation time plus this.
	DefaultConnectionCodeTTL = 7 * 24 * time.Hour
	// ConnectionCodeAlphabet is what drawn connection codes are made of: no
	// 0/O, 1/I/l, which people misread (codes are compared ignoring case, so
	// one case is all the entropy there is).
	ConnectionCodeAlphabet = PairingCodeAlphabet
	// A drawn connection code is three groups of four characters joined by
	// "-": 32^12 = 2^60 codes, easy to read out and type.
	connectionCodeGroups, connectionCodeGroup = 3, 4
	// MinConnectionGuesses is the least number of guesses zxcvbn must
	// estimate for a chosen code (as compared, in lower case): its bound of
	// "safe from unthrottled online guessing". With the per-user and per-IP
	// limits and the code's expiry, a guesser walking the likeliest codes
	// first gets nowhere near it. A random code of 8 characters just passes.
	MinConnectionGuesses = 1e8
)

// ValidateConnectionCode is the rule for a new chosen connection code: 8 to
// 64 characters of [A-Za-z0-9_-], and not easy to guess (see
// CheckConnectionStrength).
func ValidateConnectionCode(code string) error {
	if !connectionCodeShape(code, MinConnectionCode) {
		return errBadConnectionCode()
	}
	return CheckConnectionStrength(code)
}

// appWords are words a guesser of this app's codes tries early; zxcvbn
// counts them like its own dictionaries.
var appWords = []string{"tandem", "couple", "partner", "partners", "connect", "connection", "code", "link", "pair", "pairing"}

// CheckConnectionStrength refuses a code that zxcvbn's estimator (its
// bundled lists of common passwords, English words, names and film
// words, keyboard walks, repeats, sequences, dates) finds in fewer than
// MinConnectionGuesses guesses, or that is one such pattern from end to end
// (a long keyboard walk with turns can pass the bound), saying why. The code
// is judged in lower case, the way it is compared: "PassWord" is "password".
// A code zxcvbn lets pass is still refused when it is made of common love
// phrases of the supported languages and a few digits (LovePhrase):
// "iloveyou_forever", "mi_amor_2024", "ichliebedich".
func CheckConnectionStrength(code string) error {
	key := ConnectionKey(code)
	r := zxcvbn.PasswordStrength(key, appWords)
	onePattern := len(r.Sequence) == 1 && r.Sequence[0].Pattern != "bruteforce"
	if r.Guesses < MinConnectionGuesses || onePattern {
		return weakCode(r.Sequence)
	}
	if LovePhrase(key) {
		return errWeakCode("partners.weakCode.lovePhrase", "connectionCode is too easy to guess: it is made of common love phrases")
	}
	return nil
}

// weakCode is the 400 that names the guessable part of a code: the longest
// pattern zxcvbn matched (a code of random characters only is too short).
// Each reason is a whole sentence, so that it translates as one.
func weakCode(seq []*match.Match) error {
	var worst *match.Match
	for _, m := range seq {
		if m.Pattern != "bruteforce" && (worst == nil || m.J-m.I > worst.J-worst.I) {
			worst = m
		}
	}
	switch {
	case worst == nil:
		return errWeakCode("partners.weakCode.tooShort",
			"connectionCode is too easy to guess: it is too short for random characters; use more of them or let the app draw a code")
	case worst.Pattern == "dictionary" && worst.Reversed:
		return errWeakCode("partners.weakCode.reversed", "connectionCode is too easy to guess: it contains a common word, name or password spelled backwards")
	case worst.Pattern == "dictionary" && worst.DictionaryName == "passwords":
		return errWeakCode("partners.weakCode.password", "connectionCode is too easy to guess: it contains a common password")
	case worst.Pattern == "dictionary" && worst.DictionaryName == "user_inputs":
		return errWeakCode("partners.weakCode.appWord", "connectionCode is too easy to guess: it contains a word everyone tries for this app")
	case worst.Pattern == "dictionary":
		return errWeakCode("partners.weakCode.word", "connectionCode is too easy to guess: it contains a common word or name")
	case worst.Pattern == "spatial":
		return errWeakCode("partners.weakCode.keyboard", "connectionCode is too easy to guess: it contains a keyboard pattern")
	case worst.Pattern == "repeat":
		return errWeakCode("partners.weakCode.repeat", "connectionCode is too easy to guess: it contains a repeated character or group")
	case worst.Pattern == "sequence":
		return errWeakCode("partners.weakCode.sequence", "connectionCode is too easy to guess: it contains a sequence of letters or digits")
	case worst.Pattern == "date" || worst.Pattern == "regex":
		return errWeakCode("partners.weakCode.date", "connectionCode is too easy to guess: it contains a date or year")
	}
	return errWeakCode("partners.weakCode.pattern", "connectionCode is too easy to guess: it contains a pattern that is easy to guess")
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

// PairingCodePattern is NormalizePairingCode's rule as the API document
// states it: PairingCodeLength characters of PairingCodeAlphabet, its
// letters in either case, spaces around them trimmed.
var PairingCodePattern = `^[` + core.SpaceClass + `]*[A-HJ-NP-Za-hj-np-z2-9]{` + strconv.Itoa(PairingCodeLength) + `}[` + core.SpaceClass + `]*$`

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

// NewConnectionCode draws a connection code from crypto/rand: three groups
// of four characters of ConnectionCodeAlphabet joined by "-".
func NewConnectionCode() string {
	n := big.NewInt(int64(len(ConnectionCodeAlphabet)))
	b := make([]byte, 0, connectionCodeGroups*(connectionCodeGroup+1)-1)
	for g := range connectionCodeGroups {
		if g > 0 {
			b = append(b, '-')
		}
		for range connectionCodeGroup {
			k, err := rand.Int(rand.Reader, n)
			if err != nil {
				panic("partners: crypto/rand failed: " + err.Error())
			}
			b = append(b, ConnectionCodeAlphabet[k.Int64()])
		}
	}
	return string(b)
}

// Settings are the module's configuration (bound in bootstrap).
type Settings struct {
	// FailsPerUser and FailsPerIP bound the failed code attempts (link,
	// create, submit-code) of one user and of one client IP per FailWindow.
	FailsPerUser int
	FailsPerIP   int
	// ConnectionCodeTTL is how long a new connection code links; zero is
	// DefaultConnectionCodeTTL.
	ConnectionCodeTTL time.Duration
}

// connectionTTL is ConnectionCodeTTL, its default when unset.
func (s Settings) connectionTTL() time.Duration {
	if s.ConnectionCodeTTL <= 0 {
		return DefaultConnectionCodeTTL
	}
	return s.ConnectionCodeTTL
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

// The module's errors; codes are the API's (docs/api.md).

func errAlreadyPaired() error {
	return core.Conflict("already_paired", "partners.alreadyPaired", "you are already paired")
}
func errPartnerPaired() error {
	return core.Conflict("already_paired", "partners.thatUserAlreadyPaired", "that user is already paired")
}
func errNotPaired() error { return core.Conflict("not_paired", "memory.notPaired", "not paired") }
func errInvalidPairingCode() error {
	return core.Invalid("invalid_pairing_code", "partners.invalidExpiredPairingCode", "invalid or expired pairing code")
}
func errBadConnectionCode() error {
	return core.Invalid("invalid_request",
		"partners.connectionCode864CharactersZ", "connectionCode must be 8 to 64 characters of A-Z, a-z, 0-9, _ and -, unique ignoring case")
}
func errWeakCode(id, format string, args ...any) error {
	return core.Invalid("invalid_request", id, format, args...)
}
func errBadLinkCode() error {
	return core.Invalid("invalid_request", "partners.connectionCode464CharactersZ", "connectionCode must be 4 to 64 characters of A-Z, a-z, 0-9, _ and -")
}
func errConnectionTaken() error {
	return core.Conflict("conflict", "partners.connectionCodeAlreadyTaken", "connection code already taken")
}
func errConnectionNotFound() error {
	return core.NotFound("not_found", "partners.connectionCodeNotFound", "connection code not found")
}
