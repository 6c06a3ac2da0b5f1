// Package password hashes passwords with argon2id and stores them in the PHC
// string format, so the parameters travel with each hash and can be raised
// later without invalidating stored passwords.
package password

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/crypto/argon2"

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

// Hasher hashes with fixed parameters and verifies with the stored ones.
type Hasher struct {
	p Params
}

// New returns a Hasher using p; zero fields take their DefaultParams value.
func New(p Params) *Hasher {
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
	return &Hasher{p: p}
}

// Hash returns $argon2id$v=19$m=…,t=…,p=…$<salt>$<key> with a fresh random salt.
func (h *Hasher) Hash(password string) (string, error) {
	salt := make([]byte, h.p.SaltLength)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("password: salt: %w", err)
	}
	key := argon2.IDKey([]byte(password), salt, h.p.Iterations, h.p.Memory, h.p.Parallelism, h.p.KeyLength)
	return encode(h.p, salt, key), nil
}

// Verify reports whether password matches hash, using the parameters stored
// in hash. An unparsable hash gives an error wrapping ErrMalformedHash.
func (h *Hasher) Verify(hash, password string) (bool, error) {
	p, salt, key, err := decode(hash)
	if err != nil {
		return false, err
	}
	got := argon2.IDKey([]byte(password), salt, p.Iterations, p.Memory, p.Parallelism, uint32(len(key)))
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
