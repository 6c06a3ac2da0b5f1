package sealing_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"tandem/adapters/sealing"
)

func key(b byte) []byte { return bytes.Repeat([]byte{b}, sealing.KeySize) }

func TestSealOpens(t *testing.T) {
	s, err := sealing.New(key(1))
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.Seal("r.secret-token", "apple:sub-1")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.Seal("r.secret-token", "apple:sub-1")
	if a == b || strings.Contains(a, "secret") || !strings.HasPrefix(a, "v1."+sealing.KeyID(key(1))+".") {
		t.Fatalf("sealed %q and %q: a fresh nonce each time, nothing in clear, the key named", a, b)
	}
	if got, err := s.Open(a, "apple:sub-1"); err != nil || got != "r.secret-token" {
		t.Fatalf("open: %q %v", got, err)
	}
	flip := []byte(a)
	flip[len(flip)-2] ^= 1
	for name, v := range map[string]string{"another context": a, "altered": string(flip), "not sealed": "r.secret-token",
		"another version": "v2" + a[2:], "empty": ""} {
		ctx := "apple:sub-1"
		if name == "another context" {
			ctx = "apple:sub-2"
		}
		if _, err := s.Open(v, ctx); !errors.Is(err, sealing.ErrOpen) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestKeyRotation: the first key seals, every listed key opens; a key no
// longer listed opens nothing, and says which key it would need.
func TestKeyRotation(t *testing.T) {
	old, _ := sealing.New(key(1))
	sealedOld, _ := old.Seal("t", "c")
	both, err := sealing.New(key(2), key(1))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := both.Open(sealedOld, "c"); err != nil || got != "t" {
		t.Fatalf("the old key's value: %q %v", got, err)
	}
	sealedNew, _ := both.Seal("t", "c")
	if !strings.HasPrefix(sealedNew, "v1."+sealing.KeyID(key(2))+".") {
		t.Fatalf("sealed with %q", sealedNew)
	}
	if _, err := old.Open(sealedNew, "c"); !errors.Is(err, sealing.ErrOpen) || !strings.Contains(err.Error(), sealing.KeyID(key(2))) {
		t.Fatalf("a key not listed: %v", err)
	}
}

func TestKeys(t *testing.T) {
	for _, bad := range [][][]byte{nil, {key(1)[:16]}, {key(1), key(1)}} {
		if _, err := sealing.New(bad...); err == nil {
			t.Errorf("%d keys taken", len(bad))
		}
	}
	std := base64.StdEncoding.EncodeToString(key(1))
	raw := base64.RawURLEncoding.EncodeToString(key(2))
	keys, err := sealing.ParseKeys(std + ", " + raw)
	if err != nil || len(keys) != 2 || !bytes.Equal(keys[0], key(1)) || !bytes.Equal(keys[1], key(2)) {
		t.Fatalf("%v %v", keys, err)
	}
	for _, bad := range []string{"", "short", base64.StdEncoding.EncodeToString(key(1)[:31]), std + ",", "%%%"} {
		if _, err := sealing.ParseKeys(bad); err == nil {
			t.Errorf("%q taken", bad)
		}
	}
}
