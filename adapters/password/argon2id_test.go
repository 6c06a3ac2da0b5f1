package password_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"tandem/adapters/password"
)

// phc is the exact stored shape with the default parameters.
var phc = regexp.MustCompile(`^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$`)

func TestHashVerify(t *testing.T) {
	t.Parallel()
	h := password.New(password.DefaultParams)
	cases := []struct {
		name, password, wrong string
	}{
		{"ascii", "correct horse battery staple", "correct horse battery stapl"},
		{"minimum length", "12345678", "12345679"},
		{"128 characters", strings.Repeat("aB3$", 32), strings.Repeat("aB3$", 31) + "aB3%"},
		{"multi-byte", "pâsswörd-日本語-🔑🔑", "passwörd-日本語-🔑🔑"},
		{"128 multi-byte characters", strings.Repeat("🔑", 128), strings.Repeat("🔑", 127)},
		{"case matters", "Password123", "password123"},
		{"trailing space matters", "password123 ", "password123"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			hash, err := h.Hash(tc.password)
			if err != nil {
				t.Fatalf("Hash: %v", err)
			}
			if !phc.MatchString(hash) {
				t.Errorf("hash %q is not the PHC form with default parameters", hash)
			}
			if ok, err := h.Verify(hash, tc.password); err != nil || !ok {
				t.Errorf("Verify(right) = %v, %v; want true, nil", ok, err)
			}
			if ok, err := h.Verify(hash, tc.wrong); err != nil || ok {
				t.Errorf("Verify(wrong) = %v, %v; want false, nil", ok, err)
			}
		})
	}
}

func TestHashesOfSamePasswordDiffer(t *testing.T) {
	t.Parallel()
	h := password.New(password.DefaultParams)
	a, err := h.Hash("same password")
	if err != nil {
		t.Fatal(err)
	}
	b, err := h.Hash("same password")
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Errorf("two hashes of one password are equal: %q", a)
	}
	if salt := func(s string) string { return strings.Split(s, "$")[4] }; salt(a) == salt(b) {
		t.Errorf("two hashes share the salt %q", salt(a))
	}
}

// TestVerifyUsesStoredParameters: a hash made with other (older or newer)
// parameters still verifies, so the defaults can change.
func TestVerifyUsesStoredParameters(t *testing.T) {
	t.Parallel()
	cheap := password.New(password.Params{Memory: 64, Iterations: 1, Parallelism: 2, SaltLength: 8, KeyLength: 16})
	hash, err := cheap.Hash("pa55word!")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(hash, "$argon2id$v=19$m=64,t=1,p=2$") {
		t.Fatalf("hash %q does not carry its parameters", hash)
	}
	h := password.New(password.DefaultParams)
	if ok, err := h.Verify(hash, "pa55word!"); err != nil || !ok {
		t.Errorf("Verify = %v, %v; want true, nil", ok, err)
	}
	if ok, err := h.Verify(hash, "pa55word?"); err != nil || ok {
		t.Errorf("Verify(wrong) = %v, %v; want false, nil", ok, err)
	}
}

// TestReferenceVectors pins the encoding and the parameter parsing to the
// PHC reference implementation (phc-winner-argon2 src/test.c and its
// run.sh CHECK lines).
func TestReferenceVectors(t *testing.T) {
	t.Parallel()
	vectors := []string{
		"$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc",
		"$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4",
	}
	h := password.New(password.DefaultParams)
	for _, hash := range vectors {
		if ok, err := h.Verify(hash, "password"); err != nil || !ok {
			t.Errorf("Verify(%q, password) = %v, %v; want true, nil", hash, ok, err)
		}
		if ok, err := h.Verify(hash, "passwore"); err != nil || ok {
			t.Errorf("Verify(%q, passwore) = %v, %v; want false, nil", hash, ok, err)
		}
	}
}

func TestNewFillsZeroParams(t *testing.T) {
	t.Parallel()
	hash, err := password.New(password.Params{}).Hash("password")
	if err != nil {
		t.Fatal(err)
	}
	if !phc.MatchString(hash) {
		t.Errorf("New(Params{}) hash = %q, want default parameters", hash)
	}
}

func TestVerifyMalformed(t *testing.T) {
	t.Parallel()
	const salt, key = "c29tZXNhbHRzb21lc2FsdA", "CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc"
	good := "$argon2id$v=19$m=19456,t=2,p=1$" + salt + "$" + key
	cases := []struct{ name, hash string }{
		{"empty", ""},
		{"plain text", "password"},
		{"bcrypt", "$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy"},
		{"argon2i", strings.Replace(good, "argon2id", "argon2i", 1)},
		{"argon2d", strings.Replace(good, "argon2id", "argon2d", 1)},
		{"no leading dollar", good[1:]},
		{"missing version", "$argon2id$m=19456,t=2,p=1$" + salt + "$" + key},
		{"version 16", strings.Replace(good, "v=19", "v=16", 1)},
		{"missing key", "$argon2id$v=19$m=19456,t=2,p=1$" + salt},
		{"extra field", good + "$extra"},
		{"parameters reordered", strings.Replace(good, "m=19456,t=2,p=1", "t=2,m=19456,p=1", 1)},
		{"parameter missing", strings.Replace(good, "m=19456,t=2,p=1", "m=19456,t=2", 1)},
		{"parameter extra", strings.Replace(good, "m=19456,t=2,p=1", "m=19456,t=2,p=1,k=1", 1)},
		{"parameter not a number", strings.Replace(good, "t=2", "t=two", 1)},
		{"parameter signed", strings.Replace(good, "t=2", "t=+2", 1)},
		{"parameter negative", strings.Replace(good, "t=2", "t=-2", 1)},
		{"parameter empty", strings.Replace(good, "t=2", "t=", 1)},
		{"zero iterations", strings.Replace(good, "t=2", "t=0", 1)},
		{"zero parallelism", strings.Replace(good, "p=1", "p=0", 1)},
		{"parallelism overflows uint8", strings.Replace(good, "p=1", "p=256", 1)},
		{"memory overflows uint32", strings.Replace(good, "m=19456", "m=4294967296", 1)},
		{"memory too large", strings.Replace(good, "m=19456", "m=4194304", 1)},
		{"memory below 8 per lane", strings.Replace(good, "m=19456", "m=7", 1)},
		{"too many iterations", strings.Replace(good, "t=2", "t=1000", 1)},
		{"salt not base64", strings.Replace(good, salt, "!!!!notbase64!!!!", 1)},
		{"salt padded", strings.Replace(good, salt, salt+"==", 1)},
		{"salt too short", strings.Replace(good, salt, "c2FsdA", 1)},
		{"empty salt", strings.Replace(good, salt, "", 1)},
		{"key not base64", strings.Replace(good, key, "@@@@", 1)},
		{"key too short", strings.Replace(good, key, "c2hvcnQ", 1)},
		{"empty key", strings.TrimSuffix(good, key)},
		{"url-safe alphabet", strings.Replace(good, key, strings.ReplaceAll(key, "/", "_")+"-", 1)},
	}
	h := password.New(password.DefaultParams)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ok, err := h.Verify(tc.hash, "password")
			if ok || !errors.Is(err, password.ErrMalformedHash) {
				t.Errorf("Verify(%q) = %v, %v; want false, ErrMalformedHash", tc.hash, ok, err)
			}
		})
	}
	// The unmodified string parses: every failure above comes from its change.
	if _, err := h.Verify(good, "password"); err != nil {
		t.Errorf("Verify(well-formed) error = %v", err)
	}
}

func BenchmarkHash(b *testing.B) {
	h := password.New(password.DefaultParams)
	for b.Loop() {
		if _, err := h.Hash("correct horse battery staple"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerify(b *testing.B) {
	h := password.New(password.DefaultParams)
	hash, err := h.Hash("correct horse battery staple")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := h.Verify(hash, "correct horse battery staple"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDecoyCostsAVerifyAndMatchesNothing: the decoy is the stored shape
// with the default parameters, so verifying against it runs argon2id as a
// real hash does (in a slot); no password matches it, and each is new.
func TestDecoyCostsAVerifyAndMatchesNothing(t *testing.T) {
	t.Parallel()
	h := password.New(password.DefaultParams)
	hashed := 0
	h.SetInSlot(func() { hashed++ })
	decoy, err := h.Decoy()
	if err != nil {
		t.Fatal(err)
	}
	if !phc.MatchString(decoy) {
		t.Fatalf("decoy %q is not the PHC form with default parameters", decoy)
	}
	if hashed != 0 {
		t.Fatalf("making the decoy hashed %d times, want none", hashed)
	}
	for _, pw := range []string{"", "timing-equaliser-password", "12345678"} {
		if ok, err := h.Verify(decoy, pw); err != nil || ok {
			t.Errorf("Verify(decoy, %q) = %v, %v; want false, nil", pw, ok, err)
		}
	}
	if hashed != 3 {
		t.Errorf("three verifications against the decoy hashed %d times, want 3", hashed)
	}
	if again, _ := h.Decoy(); again == decoy {
		t.Error("two decoys are the same")
	}
}
