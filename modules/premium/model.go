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
}

// Grants reports whether s makes its owner premium at now: active, not
// cancelled and not yet ended. It is computed on every read, so expiry needs
// no job.
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
)

// Purchase is what a client claims to have bought; the PurchaseVerifier
// checks it before anything is written.
type Purchase struct {
	UserID    string
	Plan      string
	StartDate time.Time
	EndDate   time.Time
	BillingID string
	Platform  Platform
}

// Validate checks the fields every stored subscription must satisfy.
func (p Purchase) Validate() error {
	if p.Plan == "" {
		return core.Invalid("invalid_request", "plan is required")
	}
	if utf8.RuneCountInString(p.Plan) > MaxPlan {
		return core.Invalid("invalid_request", "plan must be at most 64 characters")
	}
	if err := core.CheckText("plan", p.Plan, false); err != nil {
		return err
	}
	if p.StartDate.IsZero() || p.EndDate.IsZero() {
		return core.Invalid("invalid_request", "startDate and endDate are required")
	}
	if !p.EndDate.After(p.StartDate) {
		return core.Invalid("invalid_request", "endDate must be after startDate")
	}
	if len(p.BillingID) > MaxBillingID {
		return core.Invalid("invalid_request", "billingId must be at most 255 characters")
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
		BillingID: s.BillingID, Platform: s.Platform}
}

// withPurchase returns s carrying p's fields.
func (s Subscription) withPurchase(p Purchase) Subscription {
	s.Plan, s.StartDate, s.EndDate, s.BillingID, s.Platform = p.Plan, p.StartDate, p.EndDate, p.BillingID, p.Platform
	return s
}

// Draft is a create or subscribe request.
type Draft struct {
	Plan      string
	StartDate time.Time
	EndDate   time.Time
	BillingID string
	Platform  string
	Meta      json.RawMessage // nil or JSON null: none
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
}

func (p Patch) empty() bool {
	return p.Plan == nil && p.StartDate == nil && p.EndDate == nil && p.BillingID == nil &&
		p.Platform == nil && p.Meta == nil
}

// NormalizeMeta compacts a meta value and checks that it is an object of at
// most MaxMeta bytes; nil and null give "{}".
func NormalizeMeta(raw json.RawMessage) (json.RawMessage, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return json.RawMessage("{}"), nil
	}
	if trimmed[0] != '{' {
		return nil, core.Invalid("invalid_request", "meta must be a JSON object")
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, trimmed); err != nil {
		return nil, core.Invalid("invalid_request", "meta must be a JSON object")
	}
	if buf.Len() > MaxMeta {
		return nil, core.Invalid("invalid_request", "meta must be at most 4 KB of JSON")
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
