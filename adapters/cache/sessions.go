// Package cache keeps resolved bearer tokens in memory for a few seconds, in
// front of the database lookup done on every authenticated request.
package cache

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"time"

	"github.com/allegro/bigcache/v3"

	"tandem/modules/accounts"
)

// MaxTTL bounds how long a token revoked by another process can keep working here.
const MaxTTL = 5 * time.Second

// Sizing: a session entry is about 60 bytes plus the e-mail and the 64-byte
// key. These only size the initial shards; HardMaxCacheSize is the real cap.
const (
	shards             = 64
	maxEntrySize       = 512
	maxEntriesInWindow = 4096
)

var _ accounts.SessionCache = (*SessionCache)(nil)

// SessionCache stores sessions in bigcache, off the garbage-collected heap.
// bigcache expires in whole seconds and only on its clean-up tick, so each
// entry carries the moment it was cached and Get applies the ttl itself.
//
// Forget leaves a tombstone for the ttl rather than deleting, so that a
// request that read the session from the database just before it was
// revoked cannot put it back after the eviction (a stripe lock makes the
// check and the write of Put one step against Forget).
type SessionCache struct {
	c       *bigcache.BigCache
	ttl     time.Duration
	start   time.Time // monotonic origin of the cached-at stamps
	stripes [64]sync.Mutex
}

// New returns a cache whose entries live at most ttl (0 < ttl <= MaxTTL)
// in at most about maxMB megabytes (maxMB >= 1). Call Close when done.
func New(ttl time.Duration, maxMB int) (*SessionCache, error) {
	if ttl <= 0 || ttl > MaxTTL {
		return nil, fmt.Errorf("cache: session ttl %v must be above 0 and at most %v", ttl, MaxTTL)
	}
	if maxMB < 1 {
		return nil, fmt.Errorf("cache: size %d MB must be at least 1", maxMB)
	}
	c, err := bigcache.New(context.Background(), bigcache.Config{
		Shards:             shards,
		LifeWindow:         ttl,
		CleanWindow:        time.Second,
		MaxEntriesInWindow: maxEntriesInWindow,
		MaxEntrySize:       maxEntrySize,
		HardMaxCacheSize:   maxMB,
		Verbose:            false,
	})
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	return &SessionCache{c: c, ttl: ttl, start: time.Now()}, nil
}

// Close stops bigcache's clean-up goroutine.
func (s *SessionCache) Close() error { return s.c.Close() }

// Get returns the session cached for tokenHash, its ExpiresAt in UTC. An
// entry older than the ttl is a miss. Whether the session itself has
// expired is the caller's to judge, by its own clock (accounts.Service).
func (s *SessionCache) Get(tokenHash string) (accounts.Session, bool) {
	b, err := s.c.Get(tokenHash)
	if err != nil {
		return accounts.Session{}, false
	}
	cachedAt, sess, ok := decode(b)
	if !ok || s.age(cachedAt) >= s.ttl {
		return accounts.Session{}, false
	}
	return sess, true
}

// Put caches sess for tokenHash. A full cache or an oversized entry only
// costs a miss later, so errors are dropped.
// A token forgotten within the ttl is not put back.
func (s *SessionCache) Put(tokenHash string, sess accounts.Session) {
	mu := s.stripe(tokenHash)
	mu.Lock()
	defer mu.Unlock()
	if b, err := s.c.Get(tokenHash); err == nil {
		if at, ok := tombstoneAt(b); ok && s.age(at) < s.ttl {
			return
		}
	}
	_ = s.c.Set(tokenHash, encode(s.since(), sess))
}

// Forget drops the given tokens at once (logout, password reset, deletion)
// and keeps them out for the ttl.
func (s *SessionCache) Forget(tokenHashes ...string) {
	for _, h := range tokenHashes {
		mu := s.stripe(h)
		mu.Lock()
		_ = s.c.Set(h, tombstone(s.since()))
		mu.Unlock()
	}
}

func (s *SessionCache) stripe(tokenHash string) *sync.Mutex {
	var h uint32 = 2166136261 // FNV-1a
	for i := 0; i < len(tokenHash); i++ {
		h = (h ^ uint32(tokenHash[i])) * 16777619
	}
	return &s.stripes[h%uint32(len(s.stripes))]
}

// A tombstone is the cached-at stamp and 0xFF: shorter than any session
// entry, so decode refuses it and Get misses.
func tombstone(at time.Duration) []byte {
	return append(binary.LittleEndian.AppendUint64(nil, uint64(at)), 0xFF)
}

func tombstoneAt(b []byte) (time.Duration, bool) {
	if len(b) != 9 || b[8] != 0xFF {
		return 0, false
	}
	return time.Duration(binary.LittleEndian.Uint64(b)), true
}

// since is the monotonic time since the cache was made, immune to wall-clock jumps.
func (s *SessionCache) since() time.Duration { return time.Since(s.start) }

func (s *SessionCache) age(cachedAt time.Duration) time.Duration { return s.since() - cachedAt }

// Entry layout, little-endian:
//
//	cachedAt int64 (ns since start) | expires unix s int64 | expires ns int32 |
//	flags byte (1 admin, 2 verified) | signed in unix ms int64 |
//	uvarint len + user id | uvarint len + e-mail
const fixedLen = 8 + 8 + 4 + 1 + 8

const (
	flagAdmin    = 1
	flagVerified = 2
)

func encode(cachedAt time.Duration, sess accounts.Session) []byte {
	b := make([]byte, fixedLen, fixedLen+2*binary.MaxVarintLen16+len(sess.UserID)+len(sess.Email))
	binary.LittleEndian.PutUint64(b[0:], uint64(cachedAt))
	binary.LittleEndian.PutUint64(b[8:], uint64(sess.ExpiresAt.Unix()))
	binary.LittleEndian.PutUint32(b[16:], uint32(sess.ExpiresAt.Nanosecond()))
	if sess.Admin {
		b[20] |= flagAdmin
	}
	if sess.Verified {
		b[20] |= flagVerified
	}
	binary.LittleEndian.PutUint64(b[21:], uint64(sess.SignedInAt.UnixMilli()))
	b = binary.AppendUvarint(b, uint64(len(sess.UserID)))
	b = append(b, sess.UserID...)
	b = binary.AppendUvarint(b, uint64(len(sess.Email)))
	b = append(b, sess.Email...)
	return b
}

func decode(b []byte) (time.Duration, accounts.Session, bool) {
	if len(b) < fixedLen || b[20] > flagAdmin|flagVerified {
		return 0, accounts.Session{}, false
	}
	cachedAt := time.Duration(binary.LittleEndian.Uint64(b[0:]))
	sec := int64(binary.LittleEndian.Uint64(b[8:]))
	nsec := int64(binary.LittleEndian.Uint32(b[16:]))
	sess := accounts.Session{ExpiresAt: time.Unix(sec, nsec).UTC(), Admin: b[20]&flagAdmin != 0,
		Verified: b[20]&flagVerified != 0, SignedInAt: time.UnixMilli(int64(binary.LittleEndian.Uint64(b[21:]))).UTC()}
	rest := b[fixedLen:]
	var ok bool
	if sess.UserID, rest, ok = readString(rest); !ok {
		return 0, accounts.Session{}, false
	}
	if sess.Email, rest, ok = readString(rest); !ok || len(rest) != 0 {
		return 0, accounts.Session{}, false
	}
	return cachedAt, sess, true
}

func readString(b []byte) (string, []byte, bool) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return "", nil, false
	}
	b = b[k:]
	return string(b[:n]), b[n:], true
}
