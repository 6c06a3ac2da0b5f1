package cache

import (
	"testing"
	"time"

	"tandem/modules/accounts"
)

func FuzzEncodeDecode(f *testing.F) {
	f.Add(int64(0), int64(1_700_000_000), int64(5), true, true, int64(1_700_000_000_123), "u1", "a@example.com")
	f.Add(int64(1<<62), int64(-62135596800), int64(0), false, false, int64(0), "", "")
	f.Add(int64(42), int64(253402300799), int64(999_999_999), false, true, int64(-5), "ü", "zoé@exämple.com")
	f.Fuzz(func(t *testing.T, cachedAt, sec, nsec int64, admin, verified bool, signedMs int64, user, email string) {
		if nsec < 0 || nsec > 999_999_999 {
			nsec = 0
		}
		in := accounts.Session{UserID: user, Email: email, Admin: admin, Verified: verified,
			SignedInAt: time.UnixMilli(signedMs), ExpiresAt: time.Unix(sec, nsec)}
		at, out, ok := decode(encode(time.Duration(cachedAt), in))
		if !ok || at != time.Duration(cachedAt) || out.UserID != user || out.Email != email ||
			out.Admin != admin || out.Verified != verified || !out.SignedInAt.Equal(in.SignedInAt) ||
			!out.ExpiresAt.Equal(in.ExpiresAt) {
			t.Fatalf("round trip of %+v at %d gave %+v at %d, ok=%v", in, cachedAt, out, at, ok)
		}
	})
}

func FuzzDecodeNeverPanics(f *testing.F) {
	f.Add(encode(time.Second, accounts.Session{UserID: "u", Email: "e@x.io", ExpiresAt: time.Now()}))
	f.Add([]byte{})
	f.Add(make([]byte, fixedLen))
	f.Fuzz(func(t *testing.T, b []byte) {
		decode(b)
	})
}

func TestDecodeRejectsCorruptEntries(t *testing.T) {
	t.Parallel()
	good := encode(time.Second, accounts.Session{UserID: "u1", Email: "a@example.com", ExpiresAt: time.Now()})
	withAdmin := func(v byte) []byte { b := append([]byte(nil), good...); b[20] = v; return b }
	cases := []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"short header", good[:fixedLen-1]},
		{"header only", good[:fixedLen]},
		{"truncated user", good[:fixedLen+2]},
		{"truncated e-mail", good[:len(good)-1]},
		{"trailing byte", append(append([]byte(nil), good...), 0)},
		{"unknown flag 4", withAdmin(4)},
		{"length past end", append(append([]byte(nil), good[:fixedLen]...), 0xff, 0xff, 0xff, 0xff, 0x0f)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, s, ok := decode(tc.b); ok {
				t.Errorf("decode(%x) = %+v, ok; want rejection", tc.b, s)
			}
		})
	}
}
