package memory

import (
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
// requests in maps under one mutex, so each method is atomic like its SQL
// transaction. members plays the role of the member primary key.
type PartnerRepo struct {
	mu           sync.RWMutex
	partnerships map[string]partners.Partnership // by id
	members      map[string]string               // user id -> partnership id
	connections  map[string]partners.Connection  // by user id
	connByKey    map[string]string               // partners.ConnectionKey(code) -> user id
	codes        map[string]partners.PairingCode // by user id
	codeOwner    map[string]string               // code -> user id
	requests     map[string]partners.Request     // by From
}

func NewPartnerRepo() *PartnerRepo {
	return &PartnerRepo{partnerships: map[string]partners.Partnership{}, members: map[string]string{},
		connections: map[string]partners.Connection{}, connByKey: map[string]string{},
		codes: map[string]partners.PairingCode{}, codeOwner: map[string]string{},
		requests: map[string]partners.Request{}}
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
	if c, ok := r.connections[userID]; ok {
		s.Connection = &c
	}
	if c, ok := r.codes[userID]; ok {
		s.PairingCode = &c
	}
	if q, ok := r.requests[userID]; ok {
		s.Outgoing = &q
	}
	for _, q := range r.requests {
		if q.To == userID {
			s.Incoming = append(s.Incoming, q)
		}
	}
	slices.SortFunc(s.Incoming, func(a, b partners.Request) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.From, b.From)
	})
	return s, nil
}

func (r *PartnerRepo) PartnershipOf(_ context.Context, userID string) (partners.Partnership, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	p, ok := r.partnershipLocked(userID)
	if !ok {
		return partners.Partnership{}, core.NotFound("not_found", "memory.notPaired", "not paired")
	}
	return p, nil
}

func (r *PartnerRepo) partnershipLocked(userID string) (partners.Partnership, bool) {
	id, ok := r.members[userID]
	if !ok {
		return partners.Partnership{}, false
	}
	return r.partnerships[id], true
}

func (r *PartnerRepo) PutConnection(_ context.Context, c partners.Connection) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := partners.ConnectionKey(c.Code)
	if owner, taken := r.connByKey[key]; taken && owner != c.UserID {
		return core.Conflict("conflict", "memory.connectionCodeTaken", "connection code taken")
	}
	if old, ok := r.connections[c.UserID]; ok {
		delete(r.connByKey, partners.ConnectionKey(old.Code))
	}
	r.connections[c.UserID] = c
	r.connByKey[key] = c.UserID
	return nil
}

func (r *PartnerRepo) ConnectionOf(_ context.Context, userID string) (partners.Connection, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	c, ok := r.connections[userID]
	if !ok {
		return partners.Connection{}, core.NotFound("not_found", "memory.noConnection", "no connection")
	}
	return c, nil
}

func (r *PartnerRepo) PurgeExpiredConnections(_ context.Context, now time.Time) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for u, c := range r.connections {
		if _, paired := r.members[u]; !paired && !c.ExpiresAt.After(now) {
			delete(r.connByKey, partners.ConnectionKey(c.Code))
			delete(r.connections, u)
			n++
		}
	}
	return n, nil
}

// ConnectionByCode finds the code by its key alone: the memory store holds no
// codes from before keys were unique, so no two share a key.
func (r *PartnerRepo) ConnectionByCode(_ context.Context, code string) (partners.Connection, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	owner, ok := r.connByKey[partners.ConnectionKey(code)]
	if !ok {
		return partners.Connection{}, core.NotFound("not_found", "memory.noConnection", "no connection")
	}
	return r.connections[owner], nil
}

// createLocked inserts the partnership and its members, refusing a second
// partnership for either user, and clears both users' pairing data.
func (r *PartnerRepo) createLocked(p partners.Partnership) error {
	for _, u := range p.Users() {
		if _, paired := r.members[u]; paired {
			return errPairedConflict()
		}
	}
	r.partnerships[p.ID] = p
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
		if c, ok := r.codes[u]; ok {
			delete(r.codeOwner, c.Code)
			delete(r.codes, u)
		}
	}
	for from, q := range r.requests {
		if slices.Contains(users, q.From) || slices.Contains(users, q.To) {
			delete(r.requests, from)
		}
	}
}

func (r *PartnerRepo) ClearPairing(_ context.Context, userID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clearPairingLocked(userID)
	if _, paired := r.members[userID]; paired {
		return nil
	}
	if c, ok := r.connections[userID]; ok {
		delete(r.connByKey, partners.ConnectionKey(c.Code))
		delete(r.connections, userID)
	}
	return nil
}

func (r *PartnerRepo) PutPairingCode(_ context.Context, c partners.PairingCode) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, paired := r.members[c.UserID]; paired {
		return errPairedConflict()
	}
	if owner, taken := r.codeOwner[c.Code]; taken && owner != c.UserID {
		return core.Conflict("conflict", "memory.pairingCodeTaken", "pairing code taken")
	}
	if old, ok := r.codes[c.UserID]; ok {
		delete(r.codeOwner, old.Code)
	}
	r.codes[c.UserID] = c
	r.codeOwner[c.Code] = c.UserID
	return nil
}

func (r *PartnerRepo) PairingCodeByCode(_ context.Context, code string) (partners.PairingCode, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	owner, ok := r.codeOwner[code]
	if !ok {
		return partners.PairingCode{}, core.NotFound("not_found", "memory.noPairingCode", "no pairing code")
	}
	return r.codes[owner], nil
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
		r.requests[q.From] = *q
	}
	return nil
}

func (r *PartnerRepo) pairingLocked(users [2]string) partners.Pairing {
	var st partners.Pairing
	for _, u := range users {
		if _, paired := r.members[u]; paired {
			st.Paired = append(st.Paired, u)
		}
		if c, ok := r.codes[u]; ok {
			st.Codes = append(st.Codes, c)
		}
		if c, ok := r.connections[u]; ok {
			st.Connections = append(st.Connections, c)
		}
		if q, ok := r.requests[u]; ok {
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
		return partners.Partnership{}, core.NotFound("not_found", "memory.notPaired", "not paired")
	}
	return p, nil
}

func (r *PartnerRepo) endLocked(userID string) (partners.Partnership, bool) {
	p, ok := r.partnershipLocked(userID)
	if !ok {
		return partners.Partnership{}, false
	}
	delete(r.partnerships, p.ID)
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
	if c, ok := r.connections[userID]; ok {
		delete(r.connByKey, partners.ConnectionKey(c.Code))
		delete(r.connections, userID)
	}
	return p, ended, nil
}
