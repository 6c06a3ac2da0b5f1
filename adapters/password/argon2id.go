// Package password hashes passwords with argon2id and stores them in the PHC
// string format, so the parameters travel with each hash and can be raised
// later without invalidating stored passwords. Each hash holds Params.Memory
// (19 MiB by default) while it runs, and unknown e-mails are hashed too, so
// a Hasher runs only a few at once and turns away what waits too long.
package password

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/argon2"

	"tandem/core"
	"tandem/modules/accounts"
)

// Params are the argon2id cost parameters.
type Params struct {
	Memory      uint32 // KiB
	Iterations  uint32
	Parallelism uint8
	SaltLength  uint32 // bytes
	KeyLength   uint32 // bytes
}

// DefaultParams are OWASP's argon2id recommendation (19 MiB, 2 passes, 1 lane).
var DefaultParams = Params{Memory: 19456, Iterations: 2, Parallelism: 1, SaltLength: 16, KeyLength: 32}

// Bounds on parameters read back from a stored hash: a corrupted or forged
// row must not make Verify allocate gigabytes or spin for minutes.
const (
	maxMemory     = 1 << 20 // KiB, 1 GiB
	maxIterations = 64
	minSalt       = 8
	maxSalt       = 64
	minKey        = 16
	maxKey        = 128
)

// ErrMalformedHash is returned (wrapped) by Verify for a string it cannot parse.
var ErrMalformedHash = errors.New("password: malformed argon2id hash")

var _ accounts.PasswordHasher = (*Hasher)(nil)

// Bound limits the hashes (Hash and Verify alike) running at once: with
// argon2id's memory per hash, this is what bounds the memory a burst of
// logins or sign-ups can take.
type Bound struct {
	Slots int           // hashes at once; default DefaultSlots()
	Wait  time.Duration // longest wait for a slot, then busy; default 2 s
}

// DefaultWait lets a burst queue rather than fail: at the default cost a
// slot frees every few tens of milliseconds.
const DefaultWait = 2 * time.Second

// busyRetry is the Retry-After of a busy answer.
const busyRetry = time.Second

// Hasher hashes with fixed parameters and verifies with the stored ones.
type Hasher struct {
	p     Params
	slots chan struct{}
	wait  time.Duration
	// inSlot, when set (tests only), runs while a slot is held.
	inSlot func()
}

// New returns a Hasher using p with the default Bound; zero fields of p take
// their DefaultParams value.
func New(p Params) *Hasher { return NewBounded(p, Bound{}) }

// NewBounded is New with b; zero fields of b take their defaults.
func NewBounded(p Params, b Bound) *Hasher {
	if b.Slots <= 0 {
		b.Slots = DefaultSlots()
	}
	if b.Wait <= 0 {
		b.Wait = DefaultWait
	}
	d := DefaultParams
	if p.Memory == 0 {
		p.Memory = d.Memory
	}
	if p.Iterations == 0 {
		p.Iterations = d.Iterations
	}
	if p.Parallelism == 0 {
		p.Parallelism = d.Parallelism
	}
	if p.SaltLength == 0 {
		p.SaltLength = d.SaltLength
	}
	if p.KeyLength == 0 {
		p.KeyLength = d.KeyLength
	}
	return &Hasher{p: p, slots: make(chan struct{}, b.Slots), wait: b.Wait}
}

// DefaultSlots is one per core, at least 2: an argon2id hash with one lane
// keeps one core busy, so more slots add no throughput, only memory. Each
// slot costs about Params.Memory × (1 + GOGC/100) of resident memory under a
// burst (the collector lets that much garbage build up): 19 MiB × 3 at
// tandem serve's GOGC of 200. Measured on 2 cores with 55 logins at once:
// 4 slots +205 to +312 MB, 2 slots +143 to +162 MB.
func DefaultSlots() int { return max(2, runtime.GOMAXPROCS(0)) }

// acquire takes a slot, waiting at most h.wait; the answer after that is
// the same for every caller (known e-mail or not), so it reveals nothing.
func (h *Hasher) acquire() error {
	select {
	case h.slots <- struct{}{}:
		return nil
	default:
	}
	t := time.NewTimer(h.wait)
	defer t.Stop()
	select {
	case h.slots <- struct{}{}:
		return nil
	case <-t.C:
		e := core.Unavailable("busy", "password.tooManyPasswordChecksOnce", "too many password checks at once; try again in a moment").
			Wrap(fmt.Errorf("password: no hashing slot free within %v", h.wait))
		e.RetryAfter = busyRetry
		return e
	}
}

// key runs argon2id in a slot.
func (h *Hasher) key(password string, salt []byte, p Params, keyLen uint32) ([]byte, error) {
	if err := h.acquire(); err != nil {
		return nil, err
	}
	defer func() { <-h.slots }()
	if h.inSlot != nil {
		h.inSlot()
	}
	return argon2.IDKey([]byte(password), salt, p.Iterations, p.Memory, p.Parallelism, keyLen), nil
}

// Hash returns $argon2id$v=19$m=…,t=…,p=…$<salt>$<key> with a fresh random
// salt. With no slot free within the Bound's wait it returns a *core.Error:
// KindUnavailable, code busy, with a RetryAfter.
func (h *Hasher) Hash(password string) (string, error) {
	salt := make([]byte, h.p.SaltLength)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("password: salt: %w", err)
	}
	key, err := h.key(password, salt, h.p, h.p.KeyLength)
	if err != nil {
		return "", err
	}
	return encode(h.p, salt, key), nil
}

// Decoy is a well-formed hash with the Hasher's parameters, a random salt
// and a random key: verifying a password against it runs argon2id as for a
// real one (same memory, passes, key length), and no password matches it
// but by finding a preimage of a random 256-bit key.
func (h *Hasher) Decoy() (string, error) {
	b := make([]byte, h.p.SaltLength+h.p.KeyLength)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("password: decoy: %w", err)
	}
	return encode(h.p, b[:h.p.SaltLength], b[h.p.SaltLength:]), nil
}

// Verify reports whether password matches hash, using the parameters stored
// in hash. An unparsable hash gives an error wrapping ErrMalformedHash; no
// slot in time gives Hash's busy error.
func (h *Hasher) Verify(hash, password string) (bool, error) {
	p, salt, key, err := decode(hash)
	if err != nil {
		return false, err
	}
	got, err := h.key(password, salt, p, uint32(len(key)))
	if err != nil {
		return false, err
	}
	return subtle.ConstantTimeCompare(got, key) == 1, nil
}

var b64 = base64.RawStdEncoding

func encode(p Params, salt, key []byte) string {
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.Memory, p.Iterations, p.Parallelism, b64.EncodeToString(salt), b64.EncodeToString(key))
}

func decode(s string) (p Params, salt, key []byte, err error) {
	bad := func(why string) (Params, []byte, []byte, error) {
		return Params{}, nil, nil, fmt.Errorf("%w: %s", ErrMalformedHash, why)
	}
	parts := strings.Split(s, "$")
	if len(parts) != 6 || parts[0] != "" {
		return bad("want $argon2id$v=…$m=…,t=…,p=…$salt$key")
	}
	if parts[1] != "argon2id" {
		return bad("algorithm is not argon2id")
	}
	if parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return bad("unsupported version")
	}
	kv := strings.Split(parts[3], ",")
	if len(kv) != 3 {
		return bad("want parameters m, t and p")
	}
	m, okM := param(kv[0], "m=", 32)
	t, okT := param(kv[1], "t=", 32)
	par, okP := param(kv[2], "p=", 8)
	if !okM || !okT || !okP {
		return bad("bad parameters")
	}
	p = Params{Memory: uint32(m), Iterations: uint32(t), Parallelism: uint8(par)}
	if p.Parallelism == 0 || p.Iterations == 0 || p.Iterations > maxIterations ||
		p.Memory < 8*uint32(p.Parallelism) || p.Memory > maxMemory {
		return bad("parameters out of range")
	}
	if salt, err = b64.Strict().DecodeString(parts[4]); err != nil || len(salt) < minSalt || len(salt) > maxSalt {
		return bad("bad salt")
	}
	if key, err = b64.Strict().DecodeString(parts[5]); err != nil || len(key) < minKey || len(key) > maxKey {
		return bad("bad key")
	}
	p.SaltLength, p.KeyLength = uint32(len(salt)), uint32(len(key))
	return p, salt, key, nil
}

// param parses "<prefix><decimal>" strictly (no sign, no spaces).
func param(s, prefix string, bits int) (uint64, bool) {
	v, ok := strings.CutPrefix(s, prefix)
	if !ok || v == "" || v[0] < '0' || v[0] > '9' {
		return 0, false
	}
	n, err := strconv.ParseUint(v, 10, bits)
	return n, err == nil
}
