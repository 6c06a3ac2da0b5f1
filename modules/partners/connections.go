// This file holds the connection-code flow of Service: a user's chosen or
// drawn code, the connection as the GET route shows it, link and unlink,
// and the purge of expired codes. The pairing-code flow is service.go's.

package partners

import (
	"context"
	"fmt"
	"time"

	"tandem/core"
)

// ConnectionView is a user's partner connection as the GET route shows it.
type ConnectionView struct {
	UserID    string
	PartnerID string    // "" while unlinked
	Code      string    // the user's own code, else the partner's; "" when paired without one
	ExpiresAt time.Time // when Code stops linking; zero with no Code
}

// CreateConnection stores the client's chosen code as the user's connection
// code, replacing an earlier one; with no code ("") it draws one. Either
// links for the configured time (Settings.ConnectionCodeTTL). A chosen code
// must be strong (ValidateConnectionCode), checked before it is counted:
// the refusal says nothing about other users' codes. Every create of a
// chosen code is a probe (409: someone holds the code; 200: nobody does), so
// each one counts like a failed guess (see reserveAttempt) and none is given
// back: were free codes given back, a guesser would walk misses for free and
// pay only for the hits it wants. A drawn code probes nothing and is not
// counted.
func (s *Service) CreateConnection(ctx context.Context, userID, code, clientIP string) (Connection, error) {
	if err := requireUser(userID); err != nil {
		return Connection{}, err
	}
	if code == "" {
		return s.drawConnection(ctx, userID)
	}
	if err := ValidateConnectionCode(code); err != nil {
		return Connection{}, err
	}
	if err := s.reserveAttempt(ctx, userID, clientIP); err != nil {
		return Connection{}, err
	}
	c := s.newConnection(userID, code)
	err := s.repo.PutConnection(ctx, c)
	if core.IsKind(err, core.KindConflict) {
		return Connection{}, errConnectionTaken()
	}
	if err != nil {
		return Connection{}, err
	}
	return c, nil
}

// drawConnection stores a drawn code as the user's connection code, drawing
// again when another user holds it or (by a freak of chance) the rule for
// chosen codes would refuse it.
func (s *Service) drawConnection(ctx context.Context, userID string) (Connection, error) {
	for draw := 1; ; draw++ {
		c := s.newConnection(userID, NewConnectionCode())
		if CheckConnectionStrength(c.Code) != nil && draw < maxCodeDraws {
			continue
		}
		err := s.repo.PutConnection(ctx, c)
		switch {
		case err == nil:
			return c, nil
		case core.IsKind(err, core.KindConflict) && draw < maxCodeDraws:
			continue
		case core.IsKind(err, core.KindConflict):
			return Connection{}, core.Internal(fmt.Errorf("partners: no free connection code in %d draws: %w", draw, err))
		}
		return Connection{}, err
	}
}

func (s *Service) newConnection(userID, code string) Connection {
	now := s.clock.Now()
	return Connection{ID: s.ids.New(), UserID: userID, Code: code, CreatedAt: now, ExpiresAt: now.Add(s.settings.connectionTTL())}
}

// Connection returns the user's connection: their own code, or, for the user
// who linked, the code of the partner; a couple paired by pairing code has
// a partner and no code. Neither a code nor a partner: 404 not_found.
func (s *Service) Connection(ctx context.Context, userID string) (ConnectionView, error) {
	if err := requireUser(userID); err != nil {
		return ConnectionView{}, err
	}
	snap, err := s.repo.Snapshot(ctx, userID)
	if err != nil {
		return ConnectionView{}, err
	}
	v := ConnectionView{UserID: userID}
	if snap.Partnership != nil {
		v.PartnerID = snap.Partnership.PartnerOf(userID)
	}
	// An expired code of an unpaired owner is gone, as after the purge.
	own := snap.Connection
	if own != nil && v.PartnerID == "" && !own.LinkableAt(s.clock.Now()) {
		own = nil
	}
	switch {
	case own != nil:
		v.Code, v.ExpiresAt = own.Code, own.ExpiresAt
	case v.PartnerID != "":
		c, err := s.repo.ConnectionOf(ctx, v.PartnerID)
		switch {
		case err == nil:
			v.Code, v.ExpiresAt = c.Code, c.ExpiresAt
		case !core.IsKind(err, core.KindNotFound):
			return ConnectionView{}, err
		}
	default:
		return ConnectionView{}, errNoConnection()
	}
	return v, nil
}

// Link makes the user the partner of the code's owner, tells the owner, and
// returns the owner. The code is found ignoring case; codes stored under the
// earlier 4-character rule still link until they expire. Order: bad code
// 400; caller paired 409; too many failed attempts 429; unknown or expired
// code 404 (one answer, and both count as a failed guess: an expired code is
// no one's); own code 400; owner paired 409.
func (s *Service) Link(ctx context.Context, userID, code, clientIP string) (string, error) {
	if err := requireUser(userID); err != nil {
		return "", err
	}
	if err := validateLinkCode(code); err != nil {
		return "", err
	}
	if err := s.requireUnpaired(ctx, userID, errAlreadyPaired); err != nil {
		return "", err
	}
	if err := s.reserveAttempt(ctx, userID, clientIP); err != nil {
		return "", err
	}
	c, err := s.repo.ConnectionByCode(ctx, code)
	if core.IsKind(err, core.KindNotFound) || err == nil && !c.LinkableAt(s.clock.Now()) {
		return "", errConnectionNotFound()
	}
	if err != nil {
		return "", err
	}
	if c.UserID == userID {
		return "", core.Invalid("invalid_request", "partners.cannotLinkOwnConnectionCode", "you cannot link with your own connection code")
	}
	if err := s.releaseAttempt(ctx, userID, clientIP); err != nil { // another user's code: no failed guess
		return "", err
	}
	if err := s.requireUnpaired(ctx, c.UserID, errPartnerPaired); err != nil {
		return "", err
	}
	now := s.clock.Now()
	p := Partnership{ID: s.ids.New(), UserA: c.UserID, UserB: userID, CreatedAt: now}
	waiting := s.counterparts(ctx, userID, c.UserID) // their requests go with the link
	// a link that stands always connects
	always := func() bool { return true }
	cs, err := s.connectChanges(ctx, p, always)
	if err != nil {
		return "", err
	}
	cleared, err := s.clearedChanges(ctx, p, waiting, always)
	if err != nil {
		return "", err
	}
	cs = append(cs, cleared...)
	if err := core.WriteWithChanges(ctx, s.bus, cs, func(ctx context.Context) error {
		return s.repo.Pair(ctx, p.Users(), func(st Pairing) (PairingChange, error) {
			return DecideLink(st, c.Code, p, now)
		})
	}); err != nil {
		return "", err
	}
	s.reconcileStart(ctx, p, cs)
	s.bus.Publish(ctx, core.PartnershipStarted{PartnershipID: p.ID, UserIDs: p.Users()})
	s.announcePairing(ctx, append([]string{userID, c.UserID}, waiting...)...)
	_ = s.notifier.Notify(ctx, c.UserID, CategoryPartnerActivity, core.Msg("partner.linked")) // logged by the adapter; the link stands
	return c.UserID, nil
}

// PurgeExpiredConnections deletes the connection codes that expired, but
// not those of paired owners, which both partners see (a periodic job).
func (s *Service) PurgeExpiredConnections(ctx context.Context) (int, error) {
	return s.repo.PurgeExpiredConnections(ctx, s.clock.Now())
}

// Unlink ends the user's partnership (the connection-code route); it is Unpair.
func (s *Service) Unlink(ctx context.Context, userID string) error { return s.end(ctx, userID) }
