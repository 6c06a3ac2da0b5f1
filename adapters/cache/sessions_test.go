package cache_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/adapters/cache"
	"tandem/modules/accounts"
)

func newCache(t testing.TB, ttl time.Duration) *cache.SessionCache {
	t.Helper()
	c, err := cache.New(ttl, 8)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func session(id string) accounts.Session {
	return accounts.Session{
		UserID:    id,
		Email:     id + "@example.com",
		ExpiresAt: time.Now().Add(accounts.TokenTTL).Truncate(time.Millisecond),
	}
}

func assertSession(t *testing.T, got accounts.Session, ok bool, want accounts.Session) {
	t.Helper()
	if !ok {
		t.Fatalf("Get missed, want %+v", want)
	}
	if got.UserID != want.UserID || got.Email != want.Email || got.Admin != want.Admin || !got.ExpiresAt.Equal(want.ExpiresAt) {
		t.Errorf("Get = %+v, want %+v", got, want)
	}
}

func TestPutGetRoundTrip(t *testing.T) {
	t.Parallel()
	future := time.Now().Add(time.Hour)
	cases := []struct {
		name string
		sess accounts.Session
	}{
		{"plain user", accounts.Session{UserID: "u1", Email: "a@example.com", ExpiresAt: future}},
		{"admin", accounts.Session{UserID: "u2", Email: "root@example.com", Admin: true, ExpiresAt: future}},
		{"nanosecond expiry kept", accounts.Session{UserID: "u3", Email: "n@example.com", ExpiresAt: time.Unix(future.Unix(), 999_999_999)}},
		{"non-UTC zone", accounts.Session{UserID: "u4", Email: "z@example.com", ExpiresAt: future.In(time.FixedZone("x", 5*3600))}},
		{"empty strings", accounts.Session{ExpiresAt: future}},
		{"longest e-mail", accounts.Session{UserID: "u5", Email: strings.Repeat("a", 242) + "@example.com", ExpiresAt: future}},
		{"multi-byte", accounts.Session{UserID: "ü", Email: "zoé@exämple.com", ExpiresAt: future}},
	}
	c := newCache(t, time.Second)
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			key := fmt.Sprintf("%064x", i)
			c.Put(key, tc.sess)
			got, ok := c.Get(key)
			assertSession(t, got, ok, tc.sess)
		})
	}
}

func TestPutReplaces(t *testing.T) {
	t.Parallel()
	c := newCache(t, time.Second)
	a, b := session("a"), session("b")
	c.Put("k", a)
	c.Put("k", b)
	got, ok := c.Get("k")
	assertSession(t, got, ok, b)
}

func TestGetUnknownMisses(t *testing.T) {
	t.Parallel()
	c := newCache(t, time.Second)
	if s, ok := c.Get("nope"); ok {
		t.Errorf("Get(unknown) = %+v, true; want a miss", s)
	}
}

func TestForget(t *testing.T) {
	t.Parallel()
	c := newCache(t, time.Second)
	for _, k := range []string{"a", "b", "c"} {
		c.Put(k, session(k))
	}
	c.Forget("a", "c", "never-cached")
	c.Forget()
	for k, want := range map[string]bool{"a": false, "b": true, "c": false} {
		if _, ok := c.Get(k); ok != want {
			t.Errorf("Get(%s) hit = %v, want %v", k, ok, want)
		}
	}
}

// TestMissAfterTTL checks the cache's own age check: with a 50 ms ttl the
// entry must disappear long before bigcache's one-second clean-up could
// matter. It polls rather than asserting on a fixed sleep.
func TestMissAfterTTL(t *testing.T) {
	t.Parallel()
	const ttl = 50 * time.Millisecond
	c := newCache(t, ttl)
	want := session("u")
	put := time.Now() // before Put, so time.Since(put) is never below the entry's age
	c.Put("k", want)
	got, ok := c.Get("k")
	if time.Since(put) < ttl { // a very slow machine may already be past the ttl
		assertSession(t, got, ok, want)
	}
	for deadline := put.Add(2 * time.Second); ; {
		if _, ok := c.Get("k"); !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("entry still served %v after Put with a ttl of %v", time.Since(put), ttl)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if elapsed := time.Since(put); elapsed < ttl {
		t.Errorf("entry vanished after %v, before the ttl of %v", elapsed, ttl)
	}
	// A fresh Put serves again.
	c.Put("k", want)
	got, ok = c.Get("k")
	assertSession(t, got, ok, want)
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		ttl     time.Duration
		maxMB   int
		wantErr bool
	}{
		{"smallest ttl", time.Nanosecond, 1, false},
		{"largest ttl", cache.MaxTTL, 64, false},
		{"zero ttl", 0, 8, true},
		{"negative ttl", -time.Second, 8, true},
		{"ttl above 5s", cache.MaxTTL + time.Nanosecond, 8, true},
		{"ttl of a minute", time.Minute, 8, true},
		{"zero size (bigcache would be unbounded)", time.Second, 0, true},
		{"negative size", time.Second, -1, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := cache.New(tc.ttl, tc.maxMB)
			if (err != nil) != tc.wantErr {
				t.Fatalf("New(%v, %d) error = %v, wantErr %v", tc.ttl, tc.maxMB, err, tc.wantErr)
			}
			if err == nil {
				_ = c.Close()
			} else if c != nil {
				t.Errorf("New returned a cache with an error")
			}
		})
	}
}

func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	c := newCache(t, time.Second)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				k := fmt.Sprintf("k%d", (g*200+i)%50)
				c.Put(k, session(k))
				if s, ok := c.Get(k); ok && s.UserID == "" {
					t.Errorf("Get(%s) returned an empty session", k)
				}
				if i%7 == 0 {
					c.Forget(k)
				}
			}
		})
	}
	wg.Wait()
}

func BenchmarkGetHit(b *testing.B) {
	c := newCache(b, cache.MaxTTL)
	c.Put("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", session("u"))
	for b.Loop() {
		if _, ok := c.Get("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"); !ok {
			b.Fatal("miss")
		}
	}
}

func BenchmarkPut(b *testing.B) {
	c := newCache(b, cache.MaxTTL)
	s := session("u")
	for b.Loop() {
		c.Put("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", s)
	}
}

// A session read from the database before its token was revoked, and put
// after the eviction, stays out: the revocation wins for the ttl.
func TestForgottenTokenIsNotPutBack(t *testing.T) {
	t.Parallel()
	c := newCache(t, 200*time.Millisecond)
	s := session("u-revoked")
	c.Put("h", s)
	c.Forget("h")
	c.Put("h", s) // the late refill
	if _, ok := c.Get("h"); ok {
		t.Fatal("a revoked token came back into the cache")
	}
	c.Put("other", s)
	if _, ok := c.Get("other"); !ok {
		t.Fatal("another token was kept out")
	}
	time.Sleep(250 * time.Millisecond) // past the ttl the tombstone no longer counts
	c.Put("h", s)
	if _, ok := c.Get("h"); !ok {
		t.Fatal("the tombstone outlived the ttl")
	}
}
