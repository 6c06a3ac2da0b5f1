package premium

import (
	"context"
	"encoding/json"
	"strings"

	"tandem/core"
)

// Service holds every premium rule of the spec and DESIGN.md.
type Service struct {
	repo     Repository
	partners Partners
	verifier PurchaseVerifier
	policy   Policy
	clock    core.Clock
}

// NewService is a plain constructor, usable without fx.
func NewService(repo Repository, partners Partners, verifier PurchaseVerifier, policy Policy, clock core.Clock) *Service {
	return &Service{repo: repo, partners: partners, verifier: verifier, policy: policy, clock: clock}
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
	now := s.clock.Now()
	own, hasOwn, err := s.find(ctx, userID)
	if err != nil {
		return Status{}, err
	}
	if hasOwn && own.Grants(now) {
		return Status{IsPremium: true, Source: SourceDirect, Subscription: &own, InForce: true}, nil
	}
	partnerID, paired, err := s.partners.PartnerOf(ctx, userID)
	if err != nil {
		return Status{}, err
	}
	if paired {
		theirs, found, err := s.find(ctx, partnerID)
		if err != nil {
			return Status{}, err
		}
		if found && theirs.Grants(now) {
			theirs.BillingID, theirs.Meta = "", json.RawMessage("{}") // the partner's billing stays theirs
			return Status{IsPremium: true, Source: SourcePartner, PartnerID: partnerID, Subscription: &theirs,
				InForce: true, Inherited: true}, nil
		}
	}
	st := Status{Source: SourceNone}
	if hasOwn {
		st.Subscription = &own
	}
	return st, nil
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
		return Access{}, core.Invalid("invalid_request", "feature is required")
	}
	st, err := s.Status(ctx, userID)
	if err != nil {
		return Access{}, err
	}
	return s.policy.access(feature, st.IsPremium), nil
}

// Subscribe creates or replaces the user's direct subscription (create and
// subscribe): active, not cancelled, renewed now.
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
		BillingID: strings.TrimSpace(d.BillingID), Platform: platform}
	p, err = s.verify(ctx, p)
	if err != nil {
		return err
	}
	now := s.clock.Now()
	sub := Subscription{UserID: userID, IsActive: true, LastRenewed: now, Meta: meta, CreatedAt: now, UpdatedAt: now}
	return s.repo.Put(ctx, sub.withPurchase(p))
}

// Update changes the given fields of the user's subscription (404 not_found
// without one). It neither activates nor cancels; moving endDate later counts
// as a renewal (lastRenewed = now).
func (s *Service) Update(ctx context.Context, userID string, p Patch) error {
	if p.empty() {
		return core.Invalid("invalid_request", "send at least one of plan, startDate, endDate, billingId, platform, meta")
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
	verified, err := s.verify(ctx, want.purchase())
	if err != nil {
		return err
	}
	now := s.clock.Now()
	_, err = s.repo.Update(ctx, userID, func(sub *Subscription) error {
		if verified.EndDate.After(sub.EndDate) {
			sub.LastRenewed = now
		}
		*sub = sub.withPurchase(verified)
		if p.Meta != nil {
			sub.Meta = want.Meta
		}
		sub.UpdatedAt = now
		return nil
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
	_, err := s.repo.Update(ctx, userID, func(sub *Subscription) error {
		sub.IsActive, sub.Cancelled, sub.UpdatedAt = false, true, now
		return nil
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

// verify validates p, then lets the verifier vouch for it; what the verifier
// returns is validated again, so a store adapter cannot store nonsense.
func (s *Service) verify(ctx context.Context, p Purchase) (Purchase, error) {
	if err := p.Validate(); err != nil {
		return Purchase{}, err
	}
	v, err := s.verifier.Verify(ctx, p)
	if err != nil {
		return Purchase{}, err
	}
	v.UserID = p.UserID
	return v, v.Validate()
}

// find returns the user's own subscription, ok false when there is none.
func (s *Service) find(ctx context.Context, userID string) (Subscription, bool, error) {
	sub, err := s.repo.Get(ctx, userID)
	if core.IsKind(err, core.KindNotFound) {
		return Subscription{}, false, nil
	}
	return sub, err == nil, err
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

func errNoPremium() error { return core.NotFound("not_found", "no premium subscription") }
