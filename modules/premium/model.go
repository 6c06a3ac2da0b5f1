// Package premium holds premium subscriptions: a user's direct subscription,
// the premium a partner inherits from it, and the feature gates and limits
// that depend on being premium.
package premium

import (
	"bytes"
	"encoding/json"
	"time"
	"unicode/utf8"

	"tandem/core"
)

// Subscription is a user's direct subscription. Inherited premium is never
// stored: it is derived from the current partner's subscription on each read.
type Subscription struct {
	UserID      string
	Plan        string // the price as text, e.g. "9.99"
	StartDate   time.Time
	EndDate     time.Time
	IsActive    bool // false once cancelled or deactivated
	Cancelled   bool
	BillingID   string // "" when not given
	Platform    Platform
	LastRenewed time.Time
	Meta        json.RawMessage // a compact JSON object, "{}" when not given
	CreatedAt   time.Time
	UpdatedAt   time.Time
	// The store's side, empty for a trusted (unverified) subscription.
	Store     Store
	StoreRef  string // the store's id of the subscription; unique among accounts
	ProductID string
	State     State
	// StoreSignedAt is when the store signed the state stored: a statement
	// signed earlier (a notification that arrives late) changes nothing.
	StoreSignedAt time.Time
	// LapseDue is when the change feed is to record that the subscription
	// stopped granting (its EndDate passed: RecordLapses); zero when it
	// grants nothing, or its lapse is recorded. Every write sets it
	// (noted).
	LapseDue time.Time
}

// noted is s with LapseDue as of a write at now: its EndDate while it
// grants, none when it does not (the write's own put shows that).
func (s Subscription) noted(now time.Time) Subscription {
	s.LapseDue = time.Time{}
	if s.Grants(now) {
		s.LapseDue = s.EndDate
	}
	return s
}

// Grants reports whether s makes its owner premium at now: active, not
// cancelled and not yet ended. It is computed on every read, so expiry needs
// no write; only the change feed records it (RecordLapses).
func (s Subscription) Grants(now time.Time) bool {
	return s.IsActive && !s.Cancelled && now.Before(s.EndDate)
}

// Platform is where the subscription was bought; PlatformNone when not given.
type Platform = core.Platform

const PlatformNone Platform = ""

// ParsePlatform accepts ios, android and web, and "" for none.
func ParsePlatform(s string) (Platform, error) {
	if s == "" {
		return PlatformNone, nil
	}
	return core.ParsePlatform(s)
}

// Source says where a user's premium comes from.
type Source string

const (
	SourceDirect  Source = "direct"
	SourcePartner Source = "partner"
	SourceNone    Source = "none"
)

const (
	MaxPlan      = 64
	MaxBillingID = 255
	MaxMeta      = 4096 // bytes of compact JSON
	// MaxProductID bounds the productId a Play proof names, in bytes: the
	// store's product id is kept as it is (product_id, 255 characters).
	MaxProductID = 255
)

// Purchase is what a client claims to have bought; the PurchaseVerifier
// checks it before anything is written. A store verifier reads only Proof and
// returns every other field from what the store signed.
type Purchase struct {
	UserID    string
	Plan      string
	StartDate time.Time
	EndDate   time.Time // when the entitlement ends: the expiry, or the end of a grace period
	BillingID string
	Platform  Platform
	Store     Store  // StoreNone under trust
	StoreRef  string // originalTransactionId; the SHA-256 (hex) of a Play purchase token
	ProductID string
	State     State     // StateActive under trust
	SignedAt  time.Time // when the store signed it; zero under trust
	Proof     Proof     // the app's evidence: input only, never stored
}

// Store names the store that vouches for a subscription.
type Store string

const (
	StoreNone     Store = ""
	StoreAppStore Store = "appstore"
	StorePlay     Store = "play"
)

// Key is the store-wide identity of a purchase: one account may hold it.
func (p Purchase) Key() string {
	if p.Store == StoreNone || p.StoreRef == "" {
		return ""
	}
	return string(p.Store) + ":" + p.StoreRef
}

// Proof is what the app got from its store.
type Proof struct {
	SignedTransaction string // App Store: StoreKit 2 signedTransactionInfo (a JWS)
	PurchaseToken     string // Google Play
	ProductID         string // Google Play: the subscription's product id
}

func (p Proof) Empty() bool { return p.SignedTransaction == "" && p.PurchaseToken == "" }

// Validate bounds the proof before any verifier reads it.
func (p Proof) Validate() error {
	if len(p.SignedTransaction) > MaxProof || len(p.PurchaseToken) > MaxProof || len(p.ProductID) > MaxProductID {
		return core.Invalid("invalid_purchase", "premium.signedTransactionInfoPurchaseTokenProductIdTooLong", "signedTransactionInfo, purchaseToken or productId is too long")
	}
	if p.SignedTransaction != "" && p.PurchaseToken != "" {
		return core.Invalid("invalid_purchase", "premium.sendSignedTransactionInfoPurchaseTokenNotBoth", "send signedTransactionInfo or purchaseToken, not both")
	}
	return nil
}

// MaxProof bounds each proof field: a StoreKit JWS with its three
// certificates is about 5 KB, a Play token a few hundred bytes.
const MaxProof = 16 << 10

// State is the store's view of a subscription.
type State string

const (
	StateActive       State = "active"        // paid up to EndDate
	StateGrace        State = "grace"         // renewal failed; access until the grace period ends (EndDate)
	StateBillingRetry State = "billing_retry" // renewal failed, no grace: no access past the expiry
	StateExpired      State = "expired"
	StateRevoked      State = "revoked" // refunded or revoked: access ends at once
	StatePaused       State = "paused"
	StateOnHold       State = "on_hold"
	StatePending      State = "pending" // not paid yet
)

// Entitles reports whether the state allows access up to EndDate: refunds,
// revocations and unpaid states end it at once whatever the dates say.
func (s State) Entitles() bool {
	switch s {
	case StateRevoked, StatePaused, StateOnHold, StatePending:
		return false
	}
	return true
}

// StoreEvent is a store's server notification, verified.
type StoreEvent struct {
	ID   string // notificationUUID or Pub/Sub message id: each is applied once
	Type string // the store's name of it, for logs (e.g. DID_RENEW/BILLING_RECOVERY)
	// Purchase is the state the store now vouches for, nil when the
	// notification changes no subscription (a test notification).
	Purchase *Purchase
}

// Notification is a store webhook request as it arrived.
type Notification struct {
	Store         Store
	Body          []byte
	Secret        string // the push URL's token parameter (Play)
	Authorization string // the Authorization header (Play's signed bearer token)
}

// Validate checks the fields every stored subscription must satisfy.
func (p Purchase) Validate() error {
	if p.Plan == "" {
		return core.Required("plan")
	}
	if utf8.RuneCountInString(p.Plan) > MaxPlan {
		return core.TooLong("plan", MaxPlan)
	}
	if err := core.CheckText("plan", p.Plan, false); err != nil {
		return err
	}
	if p.StartDate.IsZero() || p.EndDate.IsZero() {
		return core.Invalid("invalid_request", "premium.startDateEndDateRequired", "startDate and endDate are required")
	}
	if !p.EndDate.After(p.StartDate) {
		return core.Invalid("invalid_request", "premium.endDateAfterStartDate", "endDate must be after startDate")
	}
	if len(p.BillingID) > MaxBillingID {
		return core.TooLong("billingId", MaxBillingID)
	}
	if err := core.CheckText("billingId", p.BillingID, false); err != nil {
		return err
	}
	if _, err := ParsePlatform(string(p.Platform)); err != nil {
		return err
	}
	return nil
}

// purchase is the part of s a verifier vouches for.
func (s Subscription) purchase() Purchase {
	return Purchase{UserID: s.UserID, Plan: s.Plan, StartDate: s.StartDate, EndDate: s.EndDate,
		BillingID: s.BillingID, Platform: s.Platform, Store: s.Store, StoreRef: s.StoreRef, ProductID: s.ProductID,
		State: s.State, SignedAt: s.StoreSignedAt}
}

// withPurchase returns s carrying p's fields; the state decides IsActive, so
// a refund or revocation deactivates and a reversed refund reactivates.
func (s Subscription) withPurchase(p Purchase) Subscription {
	s.Plan, s.StartDate, s.EndDate, s.BillingID, s.Platform = p.Plan, p.StartDate, p.EndDate, p.BillingID, p.Platform
	s.Store, s.StoreRef, s.ProductID, s.State, s.StoreSignedAt = p.Store, p.StoreRef, p.ProductID, p.State, p.SignedAt
	if s.State == "" {
		s.State = StateActive
	}
	if s.Store != StoreNone { // under trust only create and cancel switch it
		s.IsActive = s.State.Entitles()
	}
	return s
}

// withStoreEvent returns s carrying what a notification says. A partial
// statement (a voided Play purchase the API no longer shows: no plan) only
// ends the entitlement.
func (s Subscription) withStoreEvent(p Purchase) Subscription {
	if p.Plan == "" {
		s.State, s.StoreSignedAt, s.IsActive = p.State, p.SignedAt, p.State.Entitles()
		if p.EndDate.Before(s.EndDate) && p.EndDate.After(s.StartDate) {
			s.EndDate = p.EndDate
		}
		return s
	}
	return s.withPurchase(p)
}

// Key is the store-wide identity of s's purchase, "" for none.
func (s Subscription) Key() string { return s.purchase().Key() }

// Draft is a create or subscribe request.
type Draft struct {
	Plan      string
	StartDate time.Time
	EndDate   time.Time
	BillingID string
	Platform  string
	Meta      json.RawMessage // nil or JSON null: none
	Proof     Proof
}

// Patch is an update request; nil fields stay as they are. Meta JSON null
// clears the stored object.
type Patch struct {
	Plan      *string
	StartDate *time.Time
	EndDate   *time.Time
	BillingID *string
	Platform  *string
	Meta      json.RawMessage
	Proof     Proof // a store's newer statement of the subscription
}

func (p Patch) empty() bool {
	return p.Plan == nil && p.StartDate == nil && p.EndDate == nil && p.BillingID == nil &&
		p.Platform == nil && p.Meta == nil && p.Proof.Empty()
}

// NormalizeMeta compacts a meta value and checks that it is an object of at
// most MaxMeta bytes; nil and null give "{}".
func NormalizeMeta(raw json.RawMessage) (json.RawMessage, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return json.RawMessage("{}"), nil
	}
	if trimmed[0] != '{' {
		return nil, core.Invalid("invalid_request", "premium.metaJSONObject", "meta must be a JSON object")
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, trimmed); err != nil {
		return nil, core.Invalid("invalid_request", "premium.metaJSONObject", "meta must be a JSON object")
	}
	if buf.Len() > MaxMeta {
		return nil, core.Invalid("invalid_request", "premium.metaMost4KBJSON", "meta must be at most 4 KB of JSON")
	}
	return json.RawMessage(buf.Bytes()), nil
}

// Limits is a configured limits object ({"projects": 3, "storage": "1GB"...}).
type Limits map[string]any

// Policy is the configured feature gates and limits (TANDEM_LIMITS_FREE,
// TANDEM_LIMITS_PREMIUM, TANDEM_FREE_FEATURES, TANDEM_PREMIUM_FEATURES).
type Policy struct {
	FreeLimits      Limits
	PremiumLimits   Limits
	FreeFeatures    []string
	PremiumFeatures []string
}

// Access is the answer of a feature check.
type Access struct {
	HasAccess bool
	Known     bool // false for a feature in neither list
}

// access decides a feature: a free feature is open to everyone, a premium one
// to premium users, and an unknown one to nobody.
func (p Policy) access(feature string, isPremium bool) Access {
	for _, f := range p.FreeFeatures {
		if f == feature {
			return Access{HasAccess: true, Known: true}
		}
	}
	for _, f := range p.PremiumFeatures {
		if f == feature {
			return Access{HasAccess: isPremium, Known: true}
		}
	}
	return Access{}
}

func (p Policy) limits(isPremium bool) Limits {
	if isPremium {
		return p.PremiumLimits
	}
	return p.FreeLimits
}
