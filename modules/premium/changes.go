package premium

import (
	"context"
	"errors"
	"reflect"
	"time"

	"tandem/core"
)

// The feed's premium (issue 47): a user's premium as GET
// .../premiums?action=subscription returns it (Status: isPremium and the
// subscription in effect), keyed by the reader's own id. A write of a
// user's own subscription puts the owner's status, and the partner's when
// the partner's status changes with it (premium shared by a partner). An
// unpair puts each ex-partner's status when it was inherited (LostWith),
// a connect the status a new partner starts inheriting (GainedWith). A
// store's notification puts as an app's write does (Notify). Premium that
// lapses with time (an endDate passed) is no write: the job runner records
// it shortly after (RecordLapses).

// changes are the feed's puts of a write of userID's subscription; made,
// called after the write ran (in its transaction), is the subscription it
// stored. The partner and their subscription are read before the write.
func (s *Service) changes(ctx context.Context, userID string, made func() *Subscription) ([]core.Change, error) {
	now := s.clock.Now()
	pid, partnerID, paired, err := s.partners.PartnershipOf(ctx, userID)
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
	own, theirs, err := s.pair(ctx, userID, partnerID)
	if err != nil {
		return nil, err
	}
	cs[0] = core.Put(userID, core.ChangePremium, userID, func() any { return statusOf(now, made(), partnerID, theirs) })
	before := statusOf(now, theirs, userID, own)
	return append(cs, core.Through(pid, core.Put(partnerID, core.ChangePremium, partnerID, func() any {
		if after := statusOf(now, theirs, userID, made()); !reflect.DeepEqual(after, before) {
			return after
		}
		return core.NoChange{} // the partner's own premium, or the same inherited one
	}))...), nil
}

// LostWith is, for reader, the put of their premium without exPartner's
// when reader inherited it: the status an unpair leaves them.
func (s *Service) LostWith(ctx context.Context, _, reader, exPartner string) ([]core.Change, error) {
	now := s.clock.Now()
	own, theirs, err := s.pair(ctx, reader, exPartner)
	if err != nil {
		return nil, err
	}
	before, after := statusOf(now, own, exPartner, theirs), statusOf(now, own, "", nil)
	if reflect.DeepEqual(before, after) {
		return nil, nil
	}
	return []core.Change{core.Put(reader, core.ChangePremium, reader, after)}, nil
}

// GainedWith is, for reader, the put of their premium with newPartner's
// when reader starts inheriting it: the status a connect gives them
// (core.GainedData).
func (s *Service) GainedWith(ctx context.Context, _, reader, newPartner string) ([]core.Change, error) {
	now := s.clock.Now()
	own, theirs, err := s.pair(ctx, reader, newPartner)
	if err != nil {
		return nil, err
	}
	before, after := statusOf(now, own, "", nil), statusOf(now, own, newPartner, theirs)
	if reflect.DeepEqual(before, after) {
		return nil, nil
	}
	return []core.Change{core.Put(reader, core.ChangePremium, reader, after)}, nil
}

// pair are the subscriptions of user and of other (nil: none).
func (s *Service) pair(ctx context.Context, user, other string) (own, theirs *Subscription, err error) {
	if sub, ok, err := s.find(ctx, user); err != nil {
		return nil, nil, err
	} else if ok {
		own = &sub
	}
	if sub, ok, err := s.find(ctx, other); err != nil {
		return nil, nil, err
	} else if ok {
		theirs = &sub
	}
	return own, theirs, nil
}

// LapseBatch bounds the lapses one run of RecordLapses records.
const LapseBatch = 200

// RecordLapses records in the feed the premium of each subscription whose
// EndDate passed while it granted (LapseDue reached): its owner's status,
// and the partner's when they inherited it, as their reads now show them
// (the job runner's, every minute). Each is recorded with the write that
// clears its LapseDue, once: a subscription written meanwhile (its own
// put made), or recorded by another process, is skipped.
func (s *Service) RecordLapses(ctx context.Context) (int, error) {
	now := s.clock.Now()
	due, err := s.repo.DueLapses(ctx, now, LapseBatch)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, sub := range due {
		ok, err := s.recordLapse(ctx, sub, now)
		if err != nil {
			return n, err
		}
		if ok {
			n++
		}
	}
	return n, nil
}

// recordLapse records the lapse of sub at now; false when its LapseDue
// moved meanwhile.
func (s *Service) recordLapse(ctx context.Context, sub Subscription, now time.Time) (bool, error) {
	pid, partnerID, paired, err := s.partners.PartnershipOf(ctx, sub.UserID)
	if err != nil {
		return false, err
	}
	var theirs *Subscription
	if !paired {
		partnerID = ""
	} else if t, ok, err := s.find(ctx, partnerID); err != nil {
		return false, err
	} else if ok {
		theirs = &t
	}
	var made Subscription
	cs := []core.Change{core.Put(sub.UserID, core.ChangePremium, sub.UserID, func() any {
		return statusOf(now, &made, partnerID, theirs)
	})}
	if partnerID != "" { // the partner's, when it changed at the lapse
		before := statusOf(sub.EndDate.Add(-time.Millisecond), theirs, sub.UserID, &sub)
		cs = append(cs, core.Through(pid, core.Put(partnerID, core.ChangePremium, partnerID, func() any {
			if after := statusOf(now, theirs, sub.UserID, &made); !reflect.DeepEqual(after, before) {
				return after
			}
			return core.NoChange{}
		}))...)
	}
	err = core.WriteWithChanges(ctx, s.bus, cs, func(ctx context.Context) error {
		_, err := s.repo.Update(ctx, sub.UserID, func(cur *Subscription) error {
			if !cur.LapseDue.Equal(sub.LapseDue) || cur.LapseDue.IsZero() {
				return errLapseMoved
			}
			cur.LapseDue = time.Time{}
			made = *cur
			return nil
		})
		return err
	})
	if errors.Is(err, errLapseMoved) || core.IsKind(err, core.KindNotFound) {
		return false, nil
	}
	return err == nil, err
}

// errLapseMoved: the subscription was written, or its lapse recorded,
// since DueLapses listed it.
var errLapseMoved = errors.New("premium: the lapse moved")
