package partners

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"tandem/core"
)

// The change feed of pairing (issue 47). Each member of a partnership reads
// two records of it: their pairing status (kind pairing, keyed by the
// reader's own id: GET .../pairing) and the partnership itself (kind
// partnership, keyed by its id: a Partner, the partnerId GET .../pairing
// names). A connect puts both for both members, and with them every record
// a member may now read through the partnership (the core.GainedData
// owners: the other's events, the premium a partner shares), and deletes what it hides (the solo
// thread); an end puts the status (unpaired) and deletes the partnership,
// and with them every record a member read only through the partnership
// (the core.SharedData owners: the thread's messages, the other's events
// and moods, the relationship, the question), and puts what the end shows
// again (the solo thread).

// Partner is the partnership as one member reads it: the other member.
type Partner struct {
	PartnerID string
}

// AddShared registers the modules whose records a partnership shares
// (bootstrap, once the graph is built: they depend on this service).
func (s *Service) AddShared(shared ...core.SharedData) { s.shared = append(s.shared, shared...) }

// connectChanges are the feed's changes of p's connect for both members:
// their status and the partnership, and what each may read, or no longer
// read, through it (the core.GainedData owners: the other's events, the
// premium a partner shares, the solo thread's deletes). connected, called in the write's transaction
// after it ran, says whether the write connected them (a submit may only
// wait): else none is made. The shared records are enumerated before the
// write, on every submit (one that seems to wait may connect: the other
// may submit at the same instant); one written while the pairing waits
// may miss its put (see docs/api.md "Sync").
func (s *Service) connectChanges(ctx context.Context, p Partnership, connected func() bool) ([]core.Change, error) {
	var cs []core.Change
	for _, u := range p.Users() {
		other := p.PartnerOf(u)
		cs = append(cs,
			core.Put(u, core.ChangePairing, u, Status{State: StateConnected, PartnerID: other}),
			core.Put(u, core.ChangePartnership, p.ID, Partner{PartnerID: other}))
		gained, err := s.sharedChanges(func(sh core.SharedData) ([]core.Change, error) {
			if g, ok := sh.(core.GainedData); ok {
				return g.GainedWith(ctx, p.ID, u, other)
			}
			return nil, nil
		})
		if err != nil {
			return nil, err
		}
		cs = append(cs, gained...)
	}
	return core.ChangesIf(cs, connected), nil
}

// endChanges are the feed's changes of p's end for readers (its members
// who remain): their status, unpaired (an end clears every code and
// request of both), the partnership's delete, and the changes of every
// record each read, or reads again, without p (LostWith: the deletes of
// the thread, the other's events and moods, the relationship; the puts of
// the solo thread). The records are enumerated before the write, and
// again after it (reconcileEnd): one shared while it ran (a message sent
// in the same instant) gets its delete then (see docs/api.md "Sync").
func (s *Service) endChanges(ctx context.Context, p Partnership, readers ...string) ([]core.Change, error) {
	var cs []core.Change
	for _, u := range readers {
		other := p.PartnerOf(u)
		cs = append(cs, core.Put(u, core.ChangePairing, u, Status{State: StateUnpaired}), core.Delete(u, core.ChangePartnership, p.ID))
		lost, err := s.sharedChanges(func(sh core.SharedData) ([]core.Change, error) {
			return sh.LostWith(ctx, p.ID, u, other)
		})
		if err != nil {
			return nil, err
		}
		cs = append(cs, lost...)
	}
	return cs, nil
}

// sharedChanges are of's changes of every shared-data owner, by kind, each
// owner's in its own order: the same feed whatever order the owners were
// registered in.
func (s *Service) sharedChanges(of func(core.SharedData) ([]core.Change, error)) ([]core.Change, error) {
	var out []core.Change
	for _, sh := range s.shared {
		cs, err := of(sh)
		if err != nil {
			return nil, err
		}
		out = append(out, cs...)
	}
	slices.SortStableFunc(out, func(a, b core.Change) int { return strings.Compare(a.Kind, b.Kind) })
	return out, nil
}

// reconcileEnd records, after p's end committed, the changes of the end
// that its enumeration before the write missed: a record written while the
// end ran (a message sent in the same instant), which its readers read no
// longer. The end stands whatever happens here.
func (s *Service) reconcileEnd(ctx context.Context, p Partnership, recorded []core.Change, readers ...string) {
	s.reconcile(ctx, recorded, func(ctx context.Context) ([]core.Change, error) { return s.endChanges(ctx, p, readers...) })
}

// reconcileStart is reconcileEnd for p's start: a record written while the
// connect ran (an event created in the same instant), which the new
// partner now reads.
func (s *Service) reconcileStart(ctx context.Context, p Partnership, recorded []core.Change) {
	s.reconcile(ctx, recorded, func(ctx context.Context) ([]core.Change, error) {
		return s.connectChanges(ctx, p, func() bool { return true })
	})
}

// reconcile enumerates a committed write's changes again and records
// those the first enumeration, before the write, did not have.
func (s *Service) reconcile(ctx context.Context, recorded []core.Change, enumerate func(context.Context) ([]core.Change, error)) {
	ctx, cancel := core.AfterCommit(ctx)
	defer cancel()
	again, err := enumerate(ctx)
	if err != nil {
		return // the first enumeration stands; a refetch repairs what it missed
	}
	type key struct {
		user, kind, id string
		op             core.ChangeOp
	}
	seen := make(map[key]bool, len(recorded))
	for _, c := range recorded {
		seen[key{c.UserID, c.Kind, c.ID, c.Op}] = true
	}
	missed := slices.DeleteFunc(again, func(c core.Change) bool { return seen[key{c.UserID, c.Kind, c.ID, c.Op}] })
	if len(missed) > 0 {
		_ = core.WriteWithChanges(ctx, s.bus, missed, func(context.Context) error { return nil })
	}
}

// statusChanges are the feed's pairing-status puts of users after a write
// that changes each one's snapshot as apply says: a request sent, waiting
// or cleared. The snapshots are read before the write, as every write's
// readers are (docs/api.md "Sync"); made says, in the write's transaction,
// whether the write made that change.
func (s *Service) statusChanges(ctx context.Context, users []string, apply func(u string, snap *Snapshot), made func() bool) ([]core.Change, error) {
	now := s.clock.Now()
	var cs []core.Change
	seen := map[string]bool{"": true}
	for _, u := range users {
		if seen[u] {
			continue
		}
		seen[u] = true
		snap, err := s.repo.Snapshot(ctx, u)
		if err != nil {
			return nil, err
		}
		before := statusOf(u, snap, now)
		apply(u, &snap)
		if after := statusOf(u, snap, now); !after.equal(before) { // a status the write leaves as it was: no put
			cs = append(cs, core.Put(u, core.ChangePairing, u, after))
		}
	}
	return core.ChangesIf(cs, made), nil
}

// equal says whether two statuses read the same.
func (st Status) equal(o Status) bool {
	sameCode := st.MyCode == nil && o.MyCode == nil || st.MyCode != nil && o.MyCode != nil && *st.MyCode == *o.MyCode
	st.MyCode, o.MyCode = nil, nil
	return sameCode && st == o
}

// withoutRequestsOf drops from snap every request from or to one of users.
func withoutRequestsOf(snap *Snapshot, users ...string) {
	if snap.Outgoing != nil && slices.Contains(users, snap.Outgoing.To) {
		snap.Outgoing = nil
	}
	snap.Incoming = slices.DeleteFunc(slices.Clone(snap.Incoming), func(r Request) bool { return slices.Contains(users, r.From) })
}

// requestChanges are the statuses a submit that waits changes: the
// submitter's (q is their request now), the code owner's (q is the newest
// waiting for them) and that of whoever q replaces a request to.
func (s *Service) requestChanges(ctx context.Context, q Request, others []string, made func() bool) ([]core.Change, error) {
	return s.statusChanges(ctx, append([]string{q.From, q.To}, others...), func(u string, snap *Snapshot) {
		snap.Incoming = slices.DeleteFunc(slices.Clone(snap.Incoming), func(r Request) bool { return r.From == q.From })
		switch u {
		case q.From:
			snap.Outgoing = &q
		case q.To:
			// in the stores' order: newest first (to the millisecond), then by sender
			snap.Incoming = append(snap.Incoming, q)
			slices.SortStableFunc(snap.Incoming, func(a, b Request) int {
				return cmp.Or(cmp.Compare(b.CreatedAt.UnixMilli(), a.CreatedAt.UnixMilli()), strings.Compare(a.From, b.From))
			})
		}
	}, made)
}

// clearedChanges are the statuses of the others (not p's members) whose
// requests to or from p's members p's connect clears.
func (s *Service) clearedChanges(ctx context.Context, p Partnership, others []string, made func() bool) ([]core.Change, error) {
	others = slices.DeleteFunc(slices.Clone(others), func(u string) bool { return u == p.UserA || u == p.UserB })
	return s.statusChanges(ctx, others, func(_ string, snap *Snapshot) { withoutRequestsOf(snap, p.UserA, p.UserB) }, made)
}
