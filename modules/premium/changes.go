package premium

import (
	"context"
	"reflect"

	"tandem/core"
)

// The feed's premium (issue 47): a user's premium as GET
// .../premiums?action=subscription returns it (Status: isPremium and the
// subscription in effect), keyed by the reader's own id. A write of a
// user's own subscription puts the owner's status, and the partner's when
// the partner's status changes with it (premium shared by a partner). An
// unpair puts each ex-partner's status when it was inherited (LostWith).
// Premium that lapses with time (an endDate passed) is no write: the
// feed records nothing then (docs/api.md "Sync").

// changes are the feed's puts of a write of userID's subscription; made,
// called after the write ran (in its transaction), is the subscription it
// stored. The partner and their subscription are read before the write.
func (s *Service) changes(ctx context.Context, userID string, made func() *Subscription) ([]core.Change, error) {
	now := s.clock.Now()
	partnerID, paired, err := s.partners.PartnerOf(ctx, userID)
	if err != nil {
		return nil, err
	}
	if !paired {
		partnerID = ""
	}
	cs := []core.Change{core.Put(userID, core.ChangePremium, userID, func() any {
		return statusOf(now, made(), partnerID, nil)
	})}
	if partnerID == "" {
		return cs, nil
	}
	var own, theirs *Subscription
	if sub, ok, err := s.find(ctx, userID); err != nil {
		return nil, err
	} else if ok {
		own = &sub
	}
	if sub, ok, err := s.find(ctx, partnerID); err != nil {
		return nil, err
	} else if ok {
		theirs = &sub
	}
	cs[0] = core.Put(userID, core.ChangePremium, userID, func() any { return statusOf(now, made(), partnerID, theirs) })
	before := statusOf(now, theirs, userID, own)
	return append(cs, core.Put(partnerID, core.ChangePremium, partnerID, func() any {
		if after := statusOf(now, theirs, userID, made()); !reflect.DeepEqual(after, before) {
			return after
		}
		return core.NoChange{} // the partner's own premium, or the same inherited one
	})), nil
}

// LostWith is, for reader, the put of their premium without exPartner's
// when reader inherited it: the status an unpair leaves them.
func (s *Service) LostWith(ctx context.Context, _, reader, exPartner string) ([]core.Change, error) {
	now := s.clock.Now()
	var own, theirs *Subscription
	if sub, ok, err := s.find(ctx, reader); err != nil {
		return nil, err
	} else if ok {
		own = &sub
	}
	if sub, ok, err := s.find(ctx, exPartner); err != nil {
		return nil, err
	} else if ok {
		theirs = &sub
	}
	before, after := statusOf(now, own, exPartner, theirs), statusOf(now, own, "", nil)
	if reflect.DeepEqual(before, after) {
		return nil, nil
	}
	return []core.Change{core.Put(reader, core.ChangePremium, reader, after)}, nil
}
