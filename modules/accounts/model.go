// Package accounts holds e-mail accounts: sign-up with a verification code,
// login, password reset by code, bearer tokens, the profile and
// administrators.
package accounts

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"math/big"
	"net/mail"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"tandem/core"
)

// Account is one user.
type Account struct {
	ID           string
	Email        string // FoldEmail form: trimmed, NFKC, case-folded
	PasswordHash string
	Verified     bool
	Admin        bool // the stored grant; TANDEM_ADMIN_EMAILS adds more
	// Blocked: an administrator blocked the account (the console); it gets
	// no session by any way in until unblocked (DecideSession).
	Blocked bool
	Profile
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Purpose says what a one-time code proves.
type Purpose string

const (
	PurposeVerify Purpose = "verify"
	PurposeReset  Purpose = "reset"
)

// Code is a stored one-time code; only its hash is kept.
type Code struct {
	UserID     string
	Purpose    Purpose
	Hash       string
	ExpiresAt  time.Time
	Attempts   int
	VerifiedAt time.Time // zero until a reset code is proven
	CreatedAt  time.Time
	// ProofHash is the SHA-256 of the reset token handed out when a reset
	// code is proven; the password update may present it instead of the code.
	ProofHash      string
	ProofExpiresAt time.Time
}

// Token is a stored bearer token (a session); only its SHA-256 is kept.
type Token struct {
	ID         string // the session id a user sees and deletes by; never the token
	Hash       string
	UserID     string
	UserAgent  string
	CreatedAt  time.Time
	ExpiresAt  time.Time
	LastUsedAt time.Time // zero until first used; updated at most once a minute
}

// Session is what a token resolves to.
type Session struct {
	UserID   string
	Email    string
	Admin    bool
	Verified bool // the account's e-mail is proven: administrator rights need it
	Blocked  bool // the account is blocked: the token opens nothing
	// SignedInAt is when the token was made, by a sign-in or a proof: adding
	// a way in needs one within ReauthWindow.
	SignedInAt time.Time
	ExpiresAt  time.Time
	LastUsedAt time.Time // not cached: read only on a cache miss
}

// Client is who made a request, as the HTTP adapter saw it.
type Client struct {
	IP        string
	UserAgent string
	// Locale is the supported language that best serves the caller's
	// Accept-Language ("en" without one): a new account starts with it.
	Locale string
}

// ResetProof is what the password update step carries: the verified code
// again, or the reset token the verify step returned.
type ResetProof struct {
	Code       string
	ResetToken string
}

const (
	CodeTTL = 15 * time.Minute
	// CodeTriesPerIP is how many wrong tries one client IP has at one code;
	// CodeMaxAttempts the code's ceiling across every IP, after which it is
	// dead. A stranger's wrong guesses from one place stop at the first and
	// leave the owner's code alive.
	CodeTriesPerIP  = 5
	CodeMaxAttempts = 10
	ResetProofTTL   = 10 * time.Minute
	MaxSessions     = 50 // live tokens per user; a new one revokes the oldest
	MaxUserAgent    = 256
	sessionTouch    = time.Minute
	TokenTTL        = 90 * 24 * time.Hour
	// ConsoleTTL is how long an administrator's console session lasts: a
	// working day, not an app's 90 days.
	ConsoleTTL = 12 * time.Hour
	// ConsolePrefix starts every console session token and no app token
	// (base64url has no '.'): the API refuses a console token and the
	// console an app token, so neither opens the other.
	ConsolePrefix    = "console."
	MinPassword      = 8
	MaxPassword      = 128
	MaxEmail         = 254
	MaxTimezone      = 64 // bytes of an IANA zone name
	tokenBytes       = 32
	codeDigits       = 6
	codesPerHour     = 5   // per (e-mail, client IP)
	codesPerHourMail = 10  // per e-mail across every IP: the ceiling of a distributed flood
	failedLogins     = 10  // per (e-mail, client IP)
	failedLoginsMail = 100 // per e-mail across every IP: the ceiling of a distributed guess
	failedLoginsSpan = 15 * time.Minute
	// failedConsoleMail is the console's ceiling per e-mail across every
	// IP: far above what a crowd of owners' mistakes reaches, it bounds a
	// distributed guess at an administrator's password.
	failedConsoleMail = 1000
)

// Rate rules; the counters live in the database (core.Limiter).
var (
	ruleCodesPerEmailIP = core.RateRule{Name: "codes_email_ip", Limit: codesPerHour, Window: time.Hour}
	ruleCodesPerEmail   = core.RateRule{Name: "codes_email", Limit: codesPerHourMail, Window: time.Hour}
	ruleCodeTriesIP     = core.RateRule{Name: "code_tries_ip", Limit: CodeTriesPerIP, Window: CodeTTL}
	// The console counts its own sign-ins: failed API logins for an
	// administrator's e-mail never lock the console, nor the reverse.
	ruleConsoleLogins      = core.RateRule{Name: "console_fail_ip", Limit: failedLogins, Window: failedLoginsSpan}
	ruleConsoleLoginsEmail = core.RateRule{Name: "console_fail", Limit: failedConsoleMail, Window: failedLoginsSpan}
	ruleFailedLogins       = core.RateRule{Name: "login_fail_ip", Limit: failedLogins, Window: failedLoginsSpan}
	ruleFailedLoginsEmail  = core.RateRule{Name: "login_fail", Limit: failedLoginsMail, Window: failedLoginsSpan}
)

// loginRules are the two counters a password attempt is reserved under.
type loginRules struct{ perIP, perEmail core.RateRule }

var (
	apiLogins     = loginRules{ruleFailedLogins, ruleFailedLoginsEmail}
	consoleLogins = loginRules{ruleConsoleLogins, ruleConsoleLoginsEmail}
)

// NormalizeEmail trims, folds and refuses what is not an address. Two
// spellings that look alike are one address: it compares (and stores) the
// NFKC form, case-folded, so "ｖictim@x.io" (full-width) is "victim@x.io".
// Invisible format characters (Unicode Cf, such as U+200B) are refused, not
// dropped: an address that needs them is a disguise.
func NormalizeEmail(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", core.Required("email")
	}
	if len(s) > 4*MaxEmail { // before folding: bound the work
		return "", core.Invalid("invalid_request", "accounts.emailTooLong", "email is too long")
	}
	if strings.IndexFunc(s, func(r rune) bool { return unicode.Is(unicode.Cf, r) }) >= 0 {
		return "", core.Invalid("invalid_request", "accounts.emailNotContainInvisibleCharacters", "email must not contain invisible characters")
	}
	e := FoldEmail(s)
	if len(e) > MaxEmail {
		return "", core.Invalid("invalid_request", "accounts.emailTooLong", "email is too long")
	}
	a, err := mail.ParseAddress(e)
	if err != nil || a.Address != e || !strings.Contains(e[strings.LastIndex(e, "@")+1:], ".") {
		return "", core.Invalid("invalid_request", "accounts.emailNotValidAddress", "email is not a valid address")
	}
	// ParseAddress takes UTF-8 (RFC 6532), bidirectional overrides included,
	// which would disguise the address wherever it is shown.
	if err := core.CheckText("email", e, false); err != nil {
		return "", err
	}
	return e, nil
}

// FoldEmail is the form addresses are compared in: trimmed, NFKC, case
// folded, NFKC again (folding can undo the normal form). It validates
// nothing; login uses it to look an address up as sign-up stored it.
func FoldEmail(s string) string {
	s = norm.NFKC.String(strings.TrimSpace(s))
	return norm.NFKC.String(cases.Fold().String(s))
}

// SearchCursor is a position in a search's e-mail order: the last e-mail
// of the page shown.
type SearchCursor struct{ Email string }

// String is the opaque form handed to the console.
func (c SearchCursor) String() string { return core.EncodeCursor(c.Email) }

// ParseSearchCursor reverses SearchCursor.String; anything else is a 400.
func ParseSearchCursor(s string) (SearchCursor, error) {
	parts, err := core.DecodeCursor(s, 1)
	if err != nil {
		return SearchCursor{}, err
	}
	return SearchCursor{Email: parts[0]}, nil
}

// SearchPage cuts as, read in e-mail order with one more than page.Size()
// asked for, to the page, with the next cursor when more follow:
// repositories share it so every store pages alike.
func SearchPage(as []Account, page core.Page) ([]Account, string) {
	return core.CutPage(as, page, func(a Account) string { return SearchCursor{Email: a.Email}.String() })
}

// ValidatePassword enforces 8 to 128 characters.
func ValidatePassword(field, p string) error {
	n := utf8.RuneCountInString(p)
	if n < MinPassword || n > MaxPassword {
		return core.Invalid("invalid_request", "accounts.passwordLength", "%s must be 8 to 128 characters", field)
	}
	return nil
}

// ValidateTimezone accepts an IANA zone name, or "" for UTC. The name must
// have the IANA form (see zoneName) before the time package loads it: the
// loader opens files under the zoneinfo directory, so "Etc//GMT", "./UTC"
// or "localtime" (the server's own zone) loaded, were stored, and then
// meant another zone, or UTC, wherever the zone database differs.
func ValidateTimezone(tz string) error {
	if tz == "" {
		return nil
	}
	if len(tz) > MaxTimezone || !zoneName(tz) || tz == "Local" || tz == "localtime" {
		return core.Invalid("invalid_request", "accounts.timezoneIANANameSuchEurope", "timezone must be an IANA name such as Europe/Paris")
	}
	if _, err := time.LoadLocation(tz); err != nil {
		return core.Invalid("invalid_request", "accounts.timezoneIANANameSuchEurope", "timezone must be an IANA name such as Europe/Paris")
	}
	return nil
}

// TimezonePattern is zoneName's form as the API document states it; the
// zone must also exist (ValidateTimezone), which no pattern says.
const TimezonePattern = `^(?:[A-Za-z][A-Za-z0-9_+-]*(?:/[A-Za-z][A-Za-z0-9_+-]*)*)?$`

// zoneName reports whether tz has the form of an IANA zone name:
// "/"-separated segments, each a letter followed by letters, digits, "_",
// "+" and "-" (Europe/Paris, America/Argentina/Buenos_Aires, Etc/GMT+5).
func zoneName(tz string) bool {
	for _, seg := range strings.Split(tz, "/") {
		if seg == "" || !(seg[0] >= 'A' && seg[0] <= 'Z' || seg[0] >= 'a' && seg[0] <= 'z') {
			return false
		}
		for i := 1; i < len(seg); i++ {
			c := seg[i]
			if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '+' || c == '-') {
				return false
			}
		}
	}
	return true
}

// newCode returns six digits from the secure random source.
func newCode() string {
	max := big.NewInt(1_000_000)
	n, err := rand.Int(rand.Reader, max)
	if err != nil {
		panic("accounts: crypto/rand failed: " + err.Error())
	}
	s := n.String()
	return strings.Repeat("0", codeDigits-len(s)) + s
}

// hashCode binds the code to its user and purpose, so a stored hash cannot be
// replayed for another account or step.
func hashCode(userID string, p Purpose, code string) string {
	sum := sha256.Sum256([]byte(userID + "\x00" + string(p) + "\x00" + code))
	return hex.EncodeToString(sum[:])
}

// codeMatches compares in constant time.
func codeMatches(c Code, code string) bool {
	return subtle.ConstantTimeCompare([]byte(c.Hash), []byte(hashCode(c.UserID, c.Purpose, code))) == 1
}

// secretMatches compares the SHA-256 of a presented secret with a stored
// hash in constant time.
func secretMatches(storedHash, presented string) bool {
	return storedHash != "" && subtle.ConstantTimeCompare([]byte(storedHash), []byte(HashToken(presented))) == 1
}

// clip keeps at most n bytes of s on a UTF-8 boundary.
func clip(s string, n int) string {
	for len(s) > n {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return s
}

// newToken returns the bearer token for the client and its stored hash.
func newToken() (plain, hash string) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		panic("accounts: crypto/rand failed: " + err.Error())
	}
	plain = base64.RawURLEncoding.EncodeToString(b)
	return plain, HashToken(plain)
}

// HashToken is the stored form of a bearer token.
func HashToken(plain string) string {
	sum := sha256.Sum256([]byte(plain))
	return hex.EncodeToString(sum[:])
}
