// Package sealing encrypts the few secrets Tandem must keep and use again
// (Apple's refresh tokens, revoked at account deletion): AES-256-GCM under
// a key from configuration (TANDEM_ENCRYPTION_KEY), never under one kept in
// the database beside what it seals.
package sealing

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"tandem/modules/accounts"
)

// KeySize is the length of a key: AES-256.
const KeySize = 32

// version prefixes every sealed value, so that another scheme can follow.
const version = "v1"

var _ accounts.Sealer = (*Sealer)(nil)

// ErrOpen is any sealed value that does not open: unknown key, altered
// bytes, another context, not a sealed value at all.
var ErrOpen = errors.New("sealing: the value does not open")

// Sealer seals with its first key and opens with any of them: a key is
// rotated by putting the new one first and keeping the old ones listed
// until nothing sealed with them is left.
type Sealer struct {
	seal  keyed
	byKID map[string]cipher.AEAD
}

type keyed struct {
	kid  string
	aead cipher.AEAD
}

// New takes the keys, each KeySize bytes, the sealing one first.
func New(keys ...[]byte) (*Sealer, error) {
	if len(keys) == 0 {
		return nil, errors.New("sealing: no key")
	}
	s := &Sealer{byKID: map[string]cipher.AEAD{}}
	for i, k := range keys {
		if len(k) != KeySize {
			return nil, fmt.Errorf("sealing: key %d has %d bytes, not %d", i+1, len(k), KeySize)
		}
		block, err := aes.NewCipher(k)
		if err != nil {
			return nil, err
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, err
		}
		kid := KeyID(k)
		if _, dup := s.byKID[kid]; dup {
			return nil, fmt.Errorf("sealing: key %d is listed twice", i+1)
		}
		s.byKID[kid] = aead
		if i == 0 {
			s.seal = keyed{kid: kid, aead: aead}
		}
	}
	return s, nil
}

// ParseKeys reads a comma list of keys, each KeySize bytes in standard or
// URL base64, padded or not (openssl rand -base64 32).
func ParseKeys(list string) ([][]byte, error) {
	var out [][]byte
	for i, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		k, err := decode(p)
		if err != nil || len(k) != KeySize {
			return nil, fmt.Errorf("key %d is not %d bytes in base64 (openssl rand -base64 32)", i+1, KeySize)
		}
		out = append(out, k)
	}
	return out, nil
}

func decode(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, errors.New("not base64")
}

// KeyID names a key in what it sealed without revealing it: the first 4
// bytes of its SHA-256, in hex.
func KeyID(key []byte) string {
	sum := sha256.Sum256(key)
	return hex.EncodeToString(sum[:4])
}

// Seal encrypts plain bound to context (additional data: a value sealed
// for one row does not open for another): "v1.KID.BASE64URL(nonce|ciphertext)".
func (s *Sealer) Seal(plain, context string) (string, error) {
	nonce := make([]byte, s.seal.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	out := s.seal.aead.Seal(nonce, nonce, []byte(plain), []byte(context))
	return version + "." + s.seal.kid + "." + base64.RawURLEncoding.EncodeToString(out), nil
}

// Open decrypts what Seal made with context; ErrOpen otherwise.
func (s *Sealer) Open(sealed, context string) (string, error) {
	v, rest, _ := strings.Cut(sealed, ".")
	kid, body, ok := strings.Cut(rest, ".")
	if v != version || !ok {
		return "", ErrOpen
	}
	aead, known := s.byKID[kid]
	if !known {
		return "", fmt.Errorf("%w: sealed with key %s, which is not configured", ErrOpen, kid)
	}
	b, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil || len(b) < aead.NonceSize()+aead.Overhead() {
		return "", ErrOpen
	}
	plain, err := aead.Open(nil, b[:aead.NonceSize()], b[aead.NonceSize():], []byte(context))
	if err != nil {
		return "", ErrOpen
	}
	return string(plain), nil
}
