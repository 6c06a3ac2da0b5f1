package partners

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"tandem/core"
)

// Service holds every partnership, connection-code and pairing rule of the
// API (docs/api.md). Its checks give the documented error order; the
// decisions that must see the stored state (DecideSubmit, DecideLink) run
// inside the repository's transaction (Pair), which keeps the invariants
// under concurrency.
type Service struct {
	repo     Repository
	notifier Notifier
	limiter  core.Limiter
	settings Settings
	bus      core.Publisher
	clock    core.Clock
	ids      core.IDs
	shared   []core.SharedData // AddShared
}

// NewService is a plain constructor, usable without fx.
func NewService(repo Repository, notifier Notifier, limiter core.Limiter, settings Settings,
	bus core.Publisher, clock core.Clock, ids core.IDs) *Service {
	return &Service{repo: repo, notifier: notifier, limiter: limiter, settings: settings, bus: bus, clock: clock, ids: ids}
}

// The live events of pairing. Each user whose pairing status changed hears
// of it with their own status (what GET .../pairing returns them): the two
// users of a submit, a connection or a link, and whoever's pending request
// the change replaced or cleared. When a partnership ends both former
// partners hear of it, each with the other's id (an Ended), besides their
// new status.
const (
	LivePairing = "pairing.changed"
	LiveEnded   = "partnership.ended"
)

// GenerateCode gives the user a new pairing code, valid 24 hours, replacing
// the old one.
func (s *Service) GenerateCode(ctx context.Context, userID string) (PairingCode, error) {
	if err := requireUser(userID); err != nil {
		return PairingCode{}, err
	}
	if err := s.requireUnpaired(ctx, userID, errAlreadyPaired); err != nil {
		return PairingCode{}, err
	}
	now := s.clock.Now()
	before, err := s.Status(ctx, userID)
	if err != nil {
		return PairingCode{}, err
	}
	for draw := 1; ; draw++ {
		c := PairingCode{UserID: userID, Code: NewPairingCode(), ExpiresAt: now.Add(PairingCodeTTL), CreatedAt: now}
		after := before // the feed: the owner's status with the new code
		after.MyCode = &c
		put := []core.Change{core.Put(userID, core.ChangePairing, userID, after)}
		err := core.WriteWithChanges(ctx, s.bus, put, func(ctx context.Context) error { return s.repo.PutPairingCode(ctx, c) })
		switch {
		case err == nil:
			s.announcePairing(ctx, userID)
			return c, nil
		case isAlreadyPaired(err):
			return PairingCode{}, errAlreadyPaired()
		case core.IsKind(err, core.KindConflict) && draw < maxCodeDraws:
			continue // someone else holds this code: draw again
		case core.IsKind(err, core.KindConflict):
			return PairingCode{}, core.Internal(fmt.Errorf("partners: no free pairing code in %d draws: %w", draw, err))
		}
		return PairingCode{}, err
	}
}

// SubmitCode submits the partner's pairing code. Pending until the owner of
// the code submits the caller's code; then both are connected at once.
// Order: caller paired 409; malformed code 400; too many failed attempts
// 429; own, unknown or expired code 400; owner paired 409.
func (s *Service) SubmitCode(ctx context.Context, userID, targetCode, clientIP string) (SubmitOutcome, error) {
	if err := requireUser(userID); err != nil {
		return SubmitOutcome{}, err
	}
	if err := s.requireUnpaired(ctx, userID, errAlreadyPaired); err != nil {
		return SubmitOutcome{}, err
	}
	code, ok := NormalizePairingCode(targetCode)
	if !ok {
		return SubmitOutcome{}, errInvalidPairingCode()
	}
	if err := s.reserveAttempt(ctx, userID, clientIP); err != nil {
		return SubmitOutcome{}, err
	}
	target, err := s.repo.PairingCodeByCode(ctx, code)
	if core.IsKind(err, core.KindNotFound) {
		return SubmitOutcome{}, errInvalidPairingCode()
	}
	if err != nil {
		return SubmitOutcome{}, err
	}
	now := s.clock.Now()
	if target.UserID == userID || !target.ValidAt(now) {
		return SubmitOutcome{}, errInvalidPairingCode()
	}
	if err := s.releaseAttempt(ctx, userID, clientIP); err != nil { // another user's live code: no failed guess
		return SubmitOutcome{}, err
	}
	if err := s.requireUnpaired(ctx, target.UserID, errPartnerPaired); err != nil {
		return SubmitOutcome{}, err
	}
	p := Partnership{ID: s.ids.New(), UserA: target.UserID, UserB: userID, CreatedAt: now}
	q := Request{From: userID, To: target.UserID, CreatedAt: now}
	waiting := s.counterparts(ctx, userID, target.UserID) // a request the submit replaces, or clears on connecting
	var out SubmitOutcome
	var requested bool
	cs, err := s.submitChanges(ctx, p, q, waiting, func() bool { return out.Connected }, func() bool { return requested })
	if err != nil {
		return SubmitOutcome{}, err
	}
	if err := core.WriteWithChanges(ctx, s.bus, cs, func(ctx context.Context) error {
		return s.repo.Pair(ctx, p.Users(), func(st Pairing) (PairingChange, error) {
			change, outcome, err := DecideSubmit(st, q, code, p, now)
			out, requested = outcome, change.Request != nil
			return change, err
		})
	}); err != nil {
		return SubmitOutcome{}, err
	}
	if out.Connected {
		s.reconcileStart(ctx, p, cs)
		s.bus.Publish(ctx, core.PartnershipStarted{PartnershipID: p.ID, UserIDs: p.Users()})
	}
	s.announcePairing(ctx, append([]string{userID, target.UserID}, waiting...)...)
	return out, nil
}

// submitChanges are the feed's changes of a submit, whichever it turns out
// to be in its transaction: a connect (connected) or a request that waits
// (requested).
func (s *Service) submitChanges(ctx context.Context, p Partnership, q Request, waiting []string, connected, requested func() bool) ([]core.Change, error) {
	connect, err := s.connectChanges(ctx, p, connected)
	if err != nil {
		return nil, err
	}
	cleared, err := s.clearedChanges(ctx, p, waiting, connected)
	if err != nil {
		return nil, err
	}
	wait, err := s.requestChanges(ctx, q, waiting, requested)
	if err != nil {
		return nil, err
	}
	return append(append(connect, cleared...), wait...), nil
}

// Status is the user's pairing status.
func (s *Service) Status(ctx context.Context, userID string) (Status, error) {
	if err := requireUser(userID); err != nil {
		return Status{}, err
	}
	snap, err := s.repo.Snapshot(ctx, userID)
	if err != nil {
		return Status{}, err
	}
	return statusOf(userID, snap, s.clock.Now()), nil
}

// Unpair ends the partnership for both users and clears all their pairing
// data; it cannot be undone.
func (s *Service) Unpair(ctx context.Context, userID string) error { return s.end(ctx, userID) }

// PartnerOf is the user's current partner, for other modules.
func (s *Service) PartnerOf(ctx context.Context, userID string) (partnerID string, ok bool, err error) {
	_, partnerID, ok, err = s.PartnershipOf(ctx, userID)
	return partnerID, ok, err
}

// PartnershipOf is the user's current partnership and partner, for other
// modules (data that belongs to the couple is keyed by the partnership).
func (s *Service) PartnershipOf(ctx context.Context, userID string) (partnershipID, partnerID string, ok bool, err error) {
	p, err := core.Memo(ctx, partnershipKey(userID), func() (Partnership, error) {
		return s.repo.PartnershipOf(ctx, userID)
	})
	if core.IsKind(err, core.KindNotFound) {
		return "", "", false, nil
	}
	if err != nil {
		return "", "", false, err
	}
	return p.ID, p.PartnerOf(userID), true, nil
}

func partnershipKey(userID string) string { return "partners.partnership:" + userID }

// Remember records p (ok false: none) as the request's read memo answer
// for userID's current partnership: a batch read (the home screen's)
// answers at once what the modules' reads of it would ask. Without a memo
// it does nothing.
func Remember(ctx context.Context, userID string, p Partnership, ok bool) {
	if !ok {
		core.Remember(ctx, partnershipKey(userID), Partnership{}, core.NotFound("not_found", "memory.notPaired", "not paired"))
		return
	}
	core.Remember(ctx, partnershipKey(userID), p, nil)
}

// EndsSharing: an account's deletion purges this module first
// (core.EndsSharing), so the partnership's end enumerates the shared
// records before their owners purge them.
func (s *Service) EndsSharing() {}

// Section names this module's part of an account export.
func (s *Service) Section() string { return "partners" }

// ExportUser returns the user's connection code, pairing code and partner.
func (s *Service) ExportUser(ctx context.Context, userID string) (any, error) {
	snap, err := s.repo.Snapshot(ctx, userID)
	if err != nil {
		return nil, err
	}
	var e Export
	if snap.Connection != nil {
		e.ConnectionCode = &snap.Connection.Code
	}
	if snap.PairingCode != nil {
		e.PairingCode = &snap.PairingCode.Code
	}
	if snap.Partnership != nil {
		partner := snap.Partnership.PartnerOf(userID)
		e.PartnerID = &partner
	}
	return e, nil
}

// PurgeUser ends the user's partnership (announcing it) and deletes their
// connection code, pairing code and requests. It is idempotent.
func (s *Service) PurgeUser(ctx context.Context, userID string) error {
	waiting := s.counterparts(ctx, userID) // the requests that go with the user
	// the feed: the partner's changes, of the partnership the purge ends
	var cs []core.Change
	if was, err := s.repo.PartnershipOf(ctx, userID); err == nil {
		if cs, err = s.endChanges(ctx, was, was.PartnerOf(userID)); err != nil {
			return err
		}
	} else if !core.IsKind(err, core.KindNotFound) {
		return err
	}
	others := slices.DeleteFunc(slices.Clone(waiting), func(u string) bool { return u == userID })
	cleared, err := s.statusChanges(ctx, others, func(_ string, snap *Snapshot) { withoutRequestsOf(snap, userID) },
		func() bool { return true })
	if err != nil {
		return err
	}
	cs = append(cs, cleared...)
	var p Partnership
	var ended bool
	err = core.WriteWithChanges(ctx, s.bus, cs, func(ctx context.Context) (err error) {
		p, ended, err = s.repo.Purge(ctx, userID)
		return err
	})
	if err != nil {
		return err
	}
	if ended {
		s.reconcileEnd(ctx, p, cs, p.PartnerOf(userID))
		s.bus.Publish(ctx, core.PartnershipEnded{PartnershipID: p.ID, UserIDs: p.Users()})
		s.announceEnded(ctx, p)
		waiting = append(waiting, p.PartnerOf(userID))
	}
	waiting = slices.DeleteFunc(waiting, func(u string) bool { return u == userID }) // the account is gone
	s.announcePairing(ctx, waiting...)
	return nil
}

// Listener ends what pairing made before a proof of the account's mailbox
// (WaysInEnded): its codes and pending requests, which a session the owner
// did not have may have made; and, when the account had no proven owner
// before (Unproven), its partnership too, both told as for an unpair.
func (s *Service) Listener() core.Listener {
	return core.Listener{Name: "partners", Handle: func(ctx context.Context, e core.Event) error {
		w, ok := e.(core.WaysInEnded)
		switch {
		case !ok:
			return nil
		case w.Unproven:
			return s.PurgeUser(ctx, w.UserID)
		}
		return s.clearPairing(ctx, w.UserID)
	}}
}

// clearPairing drops the user's codes and requests, the partnership kept,
// and tells everyone whose status that changes.
func (s *Service) clearPairing(ctx context.Context, userID string) error {
	waiting := s.counterparts(ctx, userID)
	cs, err := s.statusChanges(ctx, append([]string{userID}, waiting...), func(u string, snap *Snapshot) {
		if u == userID {
			snap.PairingCode, snap.Outgoing, snap.Incoming = nil, nil, nil
		}
		withoutRequestsOf(snap, userID)
	}, func() bool { return true })
	if err != nil {
		return err
	}
	if err := core.WriteWithChanges(ctx, s.bus, cs, func(ctx context.Context) error {
		return s.repo.ClearPairing(ctx, userID)
	}); err != nil {
		return err
	}
	s.announcePairing(ctx, append(waiting, userID)...)
	return nil
}

func (s *Service) end(ctx context.Context, userID string) error {
	if err := requireUser(userID); err != nil {
		return err
	}
	was, err := s.repo.PartnershipOf(ctx, userID)
	if core.IsKind(err, core.KindNotFound) {
		return errNotPaired()
	}
	if err != nil {
		return err
	}
	cs, err := s.endChanges(ctx, was, was.UserA, was.UserB)
	if err != nil {
		return err
	}
	var p Partnership
	err = core.WriteWithChanges(ctx, s.bus, cs, func(ctx context.Context) (err error) {
		p, err = s.repo.End(ctx, userID)
		return err
	})
	if core.IsKind(err, core.KindNotFound) {
		return errNotPaired()
	}
	if err != nil {
		return err
	}
	s.reconcileEnd(ctx, was, cs, was.UserA, was.UserB)
	s.bus.Publish(ctx, core.PartnershipEnded{PartnershipID: p.ID, UserIDs: p.Users()})
	s.announceEnded(ctx, p)
	s.announcePairing(ctx, p.UserA, p.UserB)
	return nil
}

// counterparts are the other users of the pending requests of users (the
// one each sent, those each waits on): a submit, a link or a purge
// replaces or clears them, which changes those users' status too. Read
// before the write; a failed read leaves its user's out (they see the
// change on their next read).
func (s *Service) counterparts(ctx context.Context, users ...string) []string {
	var out []string
	for _, u := range users {
		snap, err := s.repo.Snapshot(ctx, u)
		if err != nil {
			continue
		}
		if snap.Outgoing != nil {
			out = append(out, snap.Outgoing.To)
		}
		for _, r := range snap.Incoming {
			out = append(out, r.From)
		}
	}
	return out
}

// announcePairing tells each of users (once) of their own pairing status,
// read now, after the write. A user whose status cannot be read is left
// out.
func (s *Service) announcePairing(ctx context.Context, users ...string) {
	ctx, cancel := core.AfterCommit(ctx) // the write stands: never wait on a hung store for its news
	defer cancel()
	readers := map[string]any{}
	for _, u := range users {
		if _, seen := readers[u]; seen || u == "" {
			continue
		}
		if st, err := s.Status(ctx, u); err == nil {
			readers[u] = st
		}
	}
	if len(readers) > 0 {
		s.bus.Publish(ctx, core.Live{Type: LivePairing, For: readers})
	}
}

// announceEnded tells both former partners of p that it ended.
func (s *Service) announceEnded(ctx context.Context, p Partnership) {
	s.bus.Publish(ctx, core.Live{Type: LiveEnded, For: map[string]any{
		p.UserA: Ended{PartnerID: p.UserB}, p.UserB: Ended{PartnerID: p.UserA}}})
}

// reserveAttempt counts one attempt at a code against the user and the
// client IP before the code is looked up (core.Limiter.Hit), so a burst of
// concurrent guesses cannot pass the limits: 429 rate_limited once either is
// spent. An attempt refused by the IP limit is given back to the user's.
func (s *Service) reserveAttempt(ctx context.Context, userID, clientIP string) error {
	perUser, perIP := s.settings.failRules()
	if err := s.limiter.Hit(ctx, perUser, userID, "rate_limited"); err != nil {
		return err
	}
	if err := s.limiter.Hit(ctx, perIP, clientIP, "rate_limited"); err != nil {
		if uerr := s.limiter.Undo(ctx, perUser, userID); uerr != nil {
			return uerr
		}
		return err
	}
	return nil
}

// releaseAttempt gives a reserved attempt back: the code named was another
// user's, so it was no failed guess.
func (s *Service) releaseAttempt(ctx context.Context, userID, clientIP string) error {
	perUser, perIP := s.settings.failRules()
	if err := s.limiter.Undo(ctx, perUser, userID); err != nil {
		return err
	}
	return s.limiter.Undo(ctx, perIP, clientIP)
}

// requireUnpaired fails with paired() when the user has a partnership.
func (s *Service) requireUnpaired(ctx context.Context, userID string, paired func() error) error {
	_, err := s.repo.PartnershipOf(ctx, userID)
	switch {
	case err == nil:
		return paired()
	case core.IsKind(err, core.KindNotFound):
		return nil
	}
	return err
}

func requireUser(userID string) error {
	if strings.TrimSpace(userID) == "" {
		return core.Required("userId")
	}
	return nil
}

func isAlreadyPaired(err error) bool {
	return core.IsKind(err, core.KindConflict) && core.As(err).Code == "already_paired"
}

func errNoConnection() error {
	return core.NotFound("not_found", "partners.noPartnerConnection", "no partner connection")
}

// errPairedMeanwhile: a concurrent request paired one of the two first.
func errPairedMeanwhile() error {
	return core.Conflict("already_paired", "memory.alreadyPaired", "already paired")
}
