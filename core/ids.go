package core

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"
)

// IDs hands out identifiers; modules never make their own so tests can fix them.
type IDs interface{ New() string }

// UUIDv7 makes RFC 9562 version-7 UUIDs: time-ordered, so primary-key inserts
// stay append-only in B-tree indexes, with 74 random bits against guessing.
type UUIDv7 struct {
	mu   sync.Mutex
	last int64
}

func NewUUIDv7() *UUIDv7 { return &UUIDv7{} }

func (g *UUIDv7) New() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("core: crypto/rand failed: " + err.Error())
	}
	ms := g.monotonicMillis()
	b[0], b[1], b[2] = byte(ms>>40), byte(ms>>32), byte(ms>>24)
	b[3], b[4], b[5] = byte(ms>>16), byte(ms>>8), byte(ms)
	b[6] = 0x70 | (b[6] & 0x0f)
	b[8] = 0x80 | (b[8] & 0x3f)
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:], b[10:])
	return string(s[:])
}

// monotonicMillis never goes backwards, so ids of one process sort by creation.
func (g *UUIDv7) monotonicMillis() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	ms := time.Now().UnixMilli()
	if ms <= g.last {
		ms = g.last
	}
	g.last = ms
	return ms
}
