package memory

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"tandem/core"
	"tandem/modules/partners"
)

var _ partners.Repository = (*PartnerRepo)(nil)

// PartnerRepo keeps partnerships, connection codes, pairing codes and
// requests in tables under one mutex, so each method is atomic like its SQL
// transaction. members plays the role of the member primary key.
type PartnerRepo struct {
	mu           sync.RWMutex
	partnerships table[string, partners.Partnership] // by id
	members      map[string]string                   // user id -> partnership id
	connections  table[string, partners.Connection]  // by user id; unique: partners.ConnectionKey(code)
	codes        table[string, partners.PairingCode] // by user id; unique: code
	requests     table[string, partners.Request]     // by From
}

func NewPartnerRepo() *PartnerRepo {
	return &PartnerRepo{partnerships: newTable[string, partners.Partnership](nil, notFound("memory.notPaired", "not paired")), members: map[string]string{},
		connections: newTable[string, partners.Connection](conflict("memory.connectionCodeTaken", "connection code taken"),
			notFound("memory.noConnection", "no connection")).
			indexed(func(c partners.Connection) string { return partners.ConnectionKey(c.Code) }),
		codes: newTable[string, partners.PairingCode](conflict("memory.pairingCodeTaken", "pairing code taken"),
			notFound("memory.noPairingCode", "no pairing code")).
			indexed(func(c partners.PairingCode) string { return c.Code }),
		requests: newTable[string, partners.Request](nil, nil)}
}

func errPairedConflict() error {
	return core.Conflict("already_paired", "memory.alreadyPaired", "already paired")
}

func (r *PartnerRepo) Snapshot(_ context.Context, userID string) (partners.Snapshot, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var s partners.Snapshot
	if p, ok := r.partnershipLocked(userID); ok {
		s.Partnership = &p
	}
	if c, ok := r.connections.get(userID); ok {
		s.Connection = &c
	}
	if c, ok := r.codes.get(userID); ok {
		s.PairingCode = &c
	}
	if q, ok := r.requests.get(userID); ok {
		s.Outgoing = &q
	}
	s.Incoming = r.requests.scan(func(q partners.Request) bool { return q.To == userID }, func(a, b partners.Request) int {
		return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), strings.Compare(a.From, b.From))
	})
	return s, nil
}

func (r *PartnerRepo) PartnershipOf(_ context.Context, userID string) (partners.Partnership, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	p, ok := r.partnershipLocked(userID)
	if !ok {
		return partners.Partnership{}, r.partnerships.notFound()
	}
	return p, nil
}

// exists says whether the partnership id stands.
func (r *PartnerRepo) exists(id string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	_, ok := r.partnerships.get(id)
	return ok
}

func (r *PartnerRepo) partnershipLocked(userID string) (partners.Partnership, bool) {
	id, ok := r.members[userID]
	if !ok {
		return partners.Partnership{}, false
	}
	p, _ := r.partnerships.get(id)
	return p, true
}

func (r *PartnerRepo) PutConnection(_ context.Context, c partners.Connection) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.connections.taken(partners.ConnectionKey(c.Code), c.UserID) {
		return r.connections.conflict()
	}
	r.connections.put(c.UserID, c)
	return nil
}

func (r *PartnerRepo) ConnectionOf(_ context.Context, userID string) (partners.Connection, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.connections.find(userID)
}

func (r *PartnerRepo) PurgeExpiredConnections(_ context.Context, now time.Time) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.connections.deleteWhere(func(u string, c partners.Connection) bool {
		_, paired := r.members[u]
		return !paired && !c.ExpiresAt.After(now)
	})), nil
}

// ConnectionByCode finds the code by its key alone: the memory store holds no
// codes from before keys were unique, so no two share a key.
func (r *PartnerRepo) ConnectionByCode(_ context.Context, code string) (partners.Connection, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	c, ok := r.connections.lookup(partners.ConnectionKey(code))
	if !ok {
		return partners.Connection{}, r.connections.notFound()
	}
	return c, nil
}

// createLocked inserts the partnership and its members, refusing a second
// partnership for either user, and clears both users' pairing data.
func (r *PartnerRepo) createLocked(p partners.Partnership) error {
	for _, u := range p.Users() {
		if _, paired := r.members[u]; paired {
			return errPairedConflict()
		}
	}
	r.partnerships.put(p.ID, p)
	for _, u := range p.Users() {
		r.members[u] = p.ID
	}
	r.clearPairingLocked(p.UserA, p.UserB)
	return nil
}

// clearPairingLocked deletes the users' pairing codes and every request from
// or to them.
func (r *PartnerRepo) clearPairingLocked(users ...string) {
	for _, u := range users {
		r.codes.delete(u)
	}
	r.requests.deleteWhere(func(_ string, q partners.Request) bool {
		return slices.Contains(users, q.From) || slices.Contains(users, q.To)
	})
}

func (r *PartnerRepo) ClearPairing(_ context.Context, userID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clearPairingLocked(userID)
	if _, paired := r.members[userID]; !paired {
		r.connections.delete(userID)
	}
	return nil
}

func (r *PartnerRepo) PutPairingCode(_ context.Context, c partners.PairingCode) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, paired := r.members[c.UserID]; paired {
		return errPairedConflict()
	}
	if r.codes.taken(c.Code, c.UserID) {
		return r.codes.conflict()
	}
	r.codes.put(c.UserID, c)
	return nil
}

func (r *PartnerRepo) PairingCodeByCode(_ context.Context, code string) (partners.PairingCode, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	c, ok := r.codes.lookup(code)
	if !ok {
		return partners.PairingCode{}, r.codes.notFound()
	}
	return c, nil
}

// Pair holds the mutex for the whole decision, as the SQL transaction
// holds its row locks.
func (r *PartnerRepo) Pair(_ context.Context, users [2]string, decide func(partners.Pairing) (partners.PairingChange, error)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	change, err := decide(r.pairingLocked(users))
	if err != nil {
		return err
	}
	if change.Partnership != nil {
		return r.createLocked(*change.Partnership)
	}
	if q := change.Request; q != nil {
		if _, paired := r.members[q.From]; paired {
			return errPairedConflict()
		}
		r.requests.put(q.From, *q)
	}
	return nil
}

func (r *PartnerRepo) pairingLocked(users [2]string) partners.Pairing {
	var st partners.Pairing
	for _, u := range users {
		if _, paired := r.members[u]; paired {
			st.Paired = append(st.Paired, u)
		}
		if c, ok := r.codes.get(u); ok {
			st.Codes = append(st.Codes, c)
		}
		if c, ok := r.connections.get(u); ok {
			st.Connections = append(st.Connections, c)
		}
		if q, ok := r.requests.get(u); ok {
			st.Requests = append(st.Requests, q)
		}
	}
	return st
}

func (r *PartnerRepo) End(_ context.Context, userID string) (partners.Partnership, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.endLocked(userID)
	if !ok {
		return partners.Partnership{}, r.partnerships.notFound()
	}
	return p, nil
}

func (r *PartnerRepo) endLocked(userID string) (partners.Partnership, bool) {
	p, ok := r.partnershipLocked(userID)
	if !ok {
		return partners.Partnership{}, false
	}
	r.partnerships.delete(p.ID)
	for _, u := range p.Users() {
		delete(r.members, u)
	}
	r.clearPairingLocked(p.UserA, p.UserB)
	return p, true
}

func (r *PartnerRepo) Purge(_ context.Context, userID string) (partners.Partnership, bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ended := r.endLocked(userID)
	r.clearPairingLocked(userID)
	r.connections.delete(userID)
	return p, ended, nil
}
