package premium

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"tandem/core"
)

// Service holds every premium rule of the API (docs/api.md).
type Service struct {
	repo          Repository
	partners      Partners
	verifier      PurchaseVerifier
	notifications NotificationReader
	policy        Policy
	clock         core.Clock
	bus           core.Publisher // the feed's changes (core.WriteWithChanges)
}

// NewService is a plain constructor, usable without fx.
func NewService(repo Repository, partners Partners, verifier PurchaseVerifier, notifications NotificationReader,
	policy Policy, clock core.Clock, bus core.Publisher) *Service {
	return &Service{repo: repo, partners: partners, verifier: verifier, notifications: notifications, policy: policy,
		clock: clock, bus: bus}
}

// Status is a user's premium as of the clock's now.
type Status struct {
	IsPremium bool
	Source    Source
	// PartnerID is the partner whose subscription grants the premium; "" unless
	// Source is SourcePartner.
	PartnerID string
	// Subscription is the one in effect: the user's own when it grants
	// premium, else the partner's when that one does (Inherited, with the
	// partner's billingId and meta left out), else the user's own lapsed or
	// cancelled one; nil when there is none of these.
	Subscription *Subscription
	// InForce says whether Subscription grants premium right now: false once
	// it is cancelled, deactivated or past its endDate.
	InForce   bool
	Inherited bool
}

// Status derives the user's premium: their own subscription first, then the
// current partner's. Nothing inherited is ever stored, so it ends with the
// partnership or with the partner's subscription by itself.
func (s *Service) Status(ctx context.Context, userID string) (Status, error) {
	own, hasOwn, err := s.find(ctx, userID)
	if err != nil {
		return Status{}, err
	}
	now := s.clock.Now()
	if hasOwn && own.Grants(now) {
		return statusOf(now, &own, "", nil), nil
	}
	partnerID, paired, err := s.partners.PartnerOf(ctx, userID)
	if err != nil {
		return Status{}, err
	}
	var theirs *Subscription
	if paired {
		sub, found, err := s.find(ctx, partnerID)
		if err != nil {
			return Status{}, err
		}
		if found {
			theirs = &sub
		}
	}
	if !hasOwn {
		return statusOf(now, nil, partnerID, theirs), nil
	}
	return statusOf(now, &own, partnerID, theirs), nil
}

// statusOf is the premium of a user whose own subscription is own (nil:
// none) and whose partner partnerID ("" unpaired) holds theirs (nil: none).
func statusOf(now time.Time, own *Subscription, partnerID string, theirs *Subscription) Status {
	if own != nil && own.Grants(now) {
		o := *own
		return Status{IsPremium: true, Source: SourceDirect, Subscription: &o, InForce: true}
	}
	if partnerID != "" && theirs != nil && theirs.Grants(now) {
		t := *theirs
		t.BillingID, t.Meta = "", json.RawMessage("{}") // the partner's billing stays theirs
		t.LapseDue = time.Time{}                        // and their bookkeeping: a status compares equal without it
		return Status{IsPremium: true, Source: SourcePartner, PartnerID: partnerID, Subscription: &t,
			InForce: true, Inherited: true}
	}
	st := Status{Source: SourceNone}
	if own != nil {
		o := *own
		st.Subscription = &o
	}
	return st
}

// Limits returns the limits object that applies to the user.
func (s *Service) Limits(ctx context.Context, userID string) (bool, Limits, error) {
	st, err := s.Status(ctx, userID)
	if err != nil {
		return false, nil, err
	}
	return st.IsPremium, s.policy.limits(st.IsPremium), nil
}

// Check answers whether the user may use feature.
func (s *Service) Check(ctx context.Context, userID, feature string) (Access, error) {
	feature = strings.TrimSpace(feature)
	if feature == "" {
		return Access{}, core.Required("feature")
	}
	st, err := s.Status(ctx, userID)
	if err != nil {
		return Access{}, err
	}
	return s.policy.access(feature, st.IsPremium), nil
}

// Subscribe creates or replaces the user's direct subscription (create and
// subscribe): active, not cancelled, renewed now. With a store's proof every
// field but meta comes from what the store signed.
func (s *Service) Subscribe(ctx context.Context, userID string, d Draft) error {
	platform, err := ParsePlatform(d.Platform)
	if err != nil {
		return err
	}
	meta, err := NormalizeMeta(d.Meta)
	if err != nil {
		return err
	}
	p := Purchase{UserID: userID, Plan: strings.TrimSpace(d.Plan), StartDate: d.StartDate, EndDate: d.EndDate,
		BillingID: strings.TrimSpace(d.BillingID), Platform: platform, Proof: d.Proof}
	p, err = s.verify(ctx, p)
	if err != nil {
		return err
	}
	if p.State == StateRevoked {
		return core.Invalid("invalid_purchase", "premium.purchaseWasRefundedRevoked", "this purchase was refunded or revoked")
	}
	now := s.clock.Now()
	sub := Subscription{UserID: userID, IsActive: true, LastRenewed: now, Meta: meta, CreatedAt: now, UpdatedAt: now}
	sub = sub.withPurchase(p).noted(now)
	cs, err := s.changes(ctx, userID, func() *Subscription { return &sub })
	if err != nil {
		return err
	}
	return core.WriteWithChanges(ctx, s.bus, cs, func(ctx context.Context) error { return s.repo.Put(ctx, sub) })
}

// Update changes the given fields of the user's subscription (404 not_found
// without one). It neither activates nor cancels; moving endDate later counts
// as a renewal (lastRenewed = now).
func (s *Service) Update(ctx context.Context, userID string, p Patch) error {
	if p.empty() {
		return core.Invalid("invalid_request", "premium.sendLeastOnePlanStartDate", "send at least one of plan, startDate, endDate, billingId, platform, meta")
	}
	current, found, err := s.find(ctx, userID)
	if err != nil {
		return err
	}
	if !found {
		return errNoPremium()
	}
	want, err := applyPatch(current, p)
	if err != nil {
		return err
	}
	verified, err := s.verifyPatch(ctx, current, want, p)
	if err != nil {
		return err
	}
	now := s.clock.Now()
	var made Subscription
	cs, err := s.changes(ctx, userID, func() *Subscription { return &made })
	if err != nil {
		return err
	}
	err = core.WriteWithChanges(ctx, s.bus, cs, func(ctx context.Context) error {
		_, err := s.repo.Update(ctx, userID, func(sub *Subscription) error {
			if verified.EndDate.After(sub.EndDate) {
				sub.LastRenewed = now
			}
			*sub = sub.withPurchase(verified)
			if p.Meta != nil {
				sub.Meta = want.Meta
			}
			sub.UpdatedAt = now
			*sub = sub.noted(now)
			made = *sub
			return nil
		})
		return err
	})
	if core.IsKind(err, core.KindNotFound) {
		return errNoPremium() // deleted meanwhile
	}
	return err
}

// Cancel deactivates the user's subscription (cancel and deactivate); doing
// it again changes nothing. Inherited premium cannot be cancelled here: it is
// the partner's.
func (s *Service) Cancel(ctx context.Context, userID string) error {
	now := s.clock.Now()
	var made Subscription
	cs, err := s.changes(ctx, userID, func() *Subscription { return &made })
	if err != nil {
		return err
	}
	err = core.WriteWithChanges(ctx, s.bus, cs, func(ctx context.Context) error {
		_, err := s.repo.Update(ctx, userID, func(sub *Subscription) error {
			sub.IsActive, sub.Cancelled, sub.UpdatedAt = false, true, now
			*sub = sub.noted(now)
			made = *sub
			return nil
		})
		return err
	})
	if core.IsKind(err, core.KindNotFound) {
		return errNoPremium()
	}
	return err
}

// applyPatch returns current with p's fields, validated.
func applyPatch(current Subscription, p Patch) (Subscription, error) {
	next := current
	if p.Plan != nil {
		next.Plan = strings.TrimSpace(*p.Plan)
	}
	if p.StartDate != nil {
		next.StartDate = *p.StartDate
	}
	if p.EndDate != nil {
		next.EndDate = *p.EndDate
	}
	if p.BillingID != nil {
		next.BillingID = strings.TrimSpace(*p.BillingID)
	}
	if p.Platform != nil {
		platform, err := ParsePlatform(*p.Platform)
		if err != nil {
			return Subscription{}, err
		}
		next.Platform = platform
	}
	if p.Meta != nil {
		meta, err := NormalizeMeta(p.Meta)
		if err != nil {
			return Subscription{}, err
		}
		next.Meta = meta
	}
	return next, next.purchase().Validate()
}

// verifyPatch decides what an update may change. A store's subscription
// changes only through a newer proof from that store (meta aside); anything
// else goes through the verifier as a create does.
func (s *Service) verifyPatch(ctx context.Context, current, want Subscription, p Patch) (Purchase, error) {
	claim := want.purchase()
	claim.Proof = p.Proof
	if current.Store != StoreNone && p.Proof.Empty() {
		if p.Plan != nil || p.StartDate != nil || p.EndDate != nil || p.BillingID != nil || p.Platform != nil {
			return Purchase{}, core.Invalid("invalid_purchase",
				"premium.subscriptionComesStoreSendNewer", "this subscription comes from the store: send its newer signedTransactionInfo or purchaseToken")
		}
		return current.purchase(), nil // meta only
	}
	return s.verify(ctx, claim)
}

// verify lets the verifier vouch for p; what it returns is validated, so a
// client under trust and a store adapter alike cannot store nonsense. A
// store verifier reads only the proof: the client's other fields may be
// absent.
func (s *Service) verify(ctx context.Context, p Purchase) (Purchase, error) {
	if err := p.Proof.Validate(); err != nil {
		return Purchase{}, err
	}
	if p.Proof.Empty() {
		if err := p.Validate(); err != nil {
			return Purchase{}, err
		}
	}
	v, err := s.verifier.Verify(ctx, p)
	if err != nil {
		return Purchase{}, err
	}
	v.UserID, v.Proof = p.UserID, Proof{}
	return v, v.Validate()
}

// Notify applies a store's server notification to the subscription it is
// about, once per notification id. A statement signed before the stored one
// (notifications arrive out of order) changes nothing, and so does one about
// a purchase no account holds yet: the app's own create brings it. The feed
// puts the holder's premium, and the partner's when it changes with it, as
// an app's own write does (changes).
func (s *Service) Notify(ctx context.Context, n Notification) (StoreEvent, error) {
	ev, err := s.notifications.Read(ctx, n)
	if err != nil || ev.Purchase == nil {
		return ev, err
	}
	p := *ev.Purchase
	now := s.clock.Now()
	var made *Subscription // the holder's subscription as the notification left it; nil: unchanged
	cs, holder, err := s.storeChanges(ctx, p.Key(), func() *Subscription { return made })
	if err != nil {
		return ev, err
	}
	err = core.WriteWithChanges(ctx, s.bus, cs, func(ctx context.Context) error {
		_, _, err := s.repo.ApplyStoreEvent(ctx, string(n.Store)+":"+ev.ID, p.Key(), now, func(sub *Subscription) error {
			made = nil // a re-run of the transaction decides afresh
			if p.SignedAt.Before(sub.StoreSignedAt) {
				return nil
			}
			if p.EndDate.After(sub.EndDate) && p.State.Entitles() {
				sub.LastRenewed = now
			}
			*sub = sub.withStoreEvent(p)
			sub.UpdatedAt = now
			*sub = sub.noted(now)
			if sub.UserID == holder {
				m := *sub
				made = &m
			}
			return nil
		})
		return err
	})
	return ev, err
}

// storeChanges are the feed's puts of a store notification about the
// purchase key (changes), made only when the write changed the
// subscription of the account that held it when they were read (made not
// nil); none when no account holds it.
func (s *Service) storeChanges(ctx context.Context, key string, made func() *Subscription) ([]core.Change, string, error) {
	if key == "" {
		return nil, "", nil
	}
	held, err := s.repo.ByKey(ctx, key)
	if core.IsKind(err, core.KindNotFound) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	cs, err := s.changes(ctx, held.UserID, made)
	if err != nil {
		return nil, "", err
	}
	return core.ChangesIf(cs, func() bool { return made() != nil }), held.UserID, nil
}

// find returns the user's own subscription, ok false when there is none.
func (s *Service) find(ctx context.Context, userID string) (Subscription, bool, error) {
	f, err := core.Memo(ctx, subscriptionKey(userID), func() (core.Found[Subscription], error) {
		sub, err := s.repo.Get(ctx, userID)
		if core.IsKind(err, core.KindNotFound) {
			return core.Found[Subscription]{}, nil
		}
		return core.Found[Subscription]{Value: sub, OK: err == nil}, err
	})
	return f.Value, f.OK, err
}

func subscriptionKey(userID string) string { return "premium.subscription:" + userID }

// Remember records sub (ok false: the user has none) as the request's read
// memo answer for userID's subscription: a batch read (the home screen's)
// answers at once the status reads that follow, the user's and their
// partner's. Without a memo it does nothing.
func Remember(ctx context.Context, userID string, sub Subscription, ok bool) {
	core.Remember(ctx, subscriptionKey(userID), core.Found[Subscription]{Value: sub, OK: ok}, nil)
}

// Section, ExportUser and PurgeUser make the module a core.UserData owner.
func (s *Service) Section() string { return "premium" }

// ExportUser returns the user's own subscription, a nil *Subscription when
// none; inherited premium is not the user's data.
func (s *Service) ExportUser(ctx context.Context, userID string) (any, error) {
	sub, found, err := s.find(ctx, userID)
	if err != nil {
		return nil, err
	}
	if !found {
		return (*Subscription)(nil), nil
	}
	return &sub, nil
}

func (s *Service) PurgeUser(ctx context.Context, userID string) error {
	return s.repo.Delete(ctx, userID)
}

func errNoPremium() error {
	return core.NotFound("not_found", "premium.noPremiumSubscription", "no premium subscription")
}

// ErrPurchaseInUse is a store purchase that another account holds: a receipt
// is not shared among couples.
func ErrPurchaseInUse() *core.Error {
	return core.Conflict("purchase_in_use", "premium.purchaseBelongsAnotherAccount", "this purchase belongs to another account")
}
