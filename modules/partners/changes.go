package partners

import (
	"context"
	"slices"
	"strings"

	"tandem/core"
)

// The change feed of pairing (issue 47). Each member of a partnership reads
// two records of it: their pairing status (kind pairing, keyed by the
// reader's own id: GET .../pairing) and the partnership itself (kind
// partnership, keyed by its id: a Partner, the partnerId GET .../pairing
// names). A connect puts both for both members, with the premium a
// partner starts sharing (core.SharedGain); an end puts the status
// (unpaired) and deletes the partnership, and with them every record a
// member read only through the partnership (the core.SharedData owners:
// the thread's messages, the other's events and moods, the relationship).

// Partner is the partnership as one member reads it: the other member.
type Partner struct {
	PartnerID string
}

// AddShared registers the modules whose records a partnership shares
// (bootstrap, once the graph is built: they depend on this service).
func (s *Service) AddShared(shared ...core.SharedData) { s.shared = append(s.shared, shared...) }

// connectChanges are the feed's changes of p's connect for both members:
// their status, the partnership, and what the pairing changes of each
// one's own reads (the core.SharedGain owners: the premium a partner
// shares). connected, called in the write's transaction after it ran,
// says whether the write connected them (a submit may only wait): else
// none is made.
func (s *Service) connectChanges(ctx context.Context, p Partnership, connected func() bool) ([]core.Change, error) {
	cs := make([]core.Change, 0, 6)
	for _, u := range p.Users() {
		other := p.PartnerOf(u)
		cs = append(cs,
			core.Put(u, core.ChangePairing, u, Status{State: StateConnected, PartnerID: other}),
			core.Put(u, core.ChangePartnership, p.ID, Partner{PartnerID: other}))
		for _, sh := range s.shared {
			g, ok := sh.(core.SharedGain)
			if !ok {
				continue
			}
			gained, err := g.GainedWith(ctx, p.ID, u, other)
			if err != nil {
				return nil, err
			}
			cs = append(cs, gained...)
		}
	}
	return core.ChangesIf(cs, connected), nil
}

// endChanges are the feed's changes of p's end for readers (its members
// who remain): their status, unpaired (an end clears every code and
// request of both), the partnership's delete, and the delete of every
// record each read only through p. The records are enumerated before the
// write: one shared while it waits (a message sent in the same instant)
// may miss its delete (see docs/api.md "Sync").
func (s *Service) endChanges(ctx context.Context, p Partnership, readers ...string) ([]core.Change, error) {
	var cs []core.Change
	for _, u := range readers {
		other := p.PartnerOf(u)
		cs = append(cs, core.Put(u, core.ChangePairing, u, Status{State: StateUnpaired}), core.Delete(u, core.ChangePartnership, p.ID))
		var lost []core.Change
		for _, sh := range s.shared {
			l, err := sh.LostWith(ctx, p.ID, u, other)
			if err != nil {
				return nil, err
			}
			lost = append(lost, l...)
		}
		// by kind, each owner's in its own order: the same feed whatever
		// order the owners were registered in
		slices.SortStableFunc(lost, func(a, b core.Change) int { return strings.Compare(a.Kind, b.Kind) })
		cs = append(cs, lost...)
	}
	return cs, nil
}
