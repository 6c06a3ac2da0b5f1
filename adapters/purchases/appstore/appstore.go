// Package appstore verifies StoreKit 2 signed data offline: the
// signedTransactionInfo an app sends and App Store Server Notifications V2.
// Apple signs both as JWS with its certificate chain in the header, so
// checking the chain against Apple's root needs no key and no network call.
package appstore

import (
	"context"
	"crypto/x509"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"tandem/core"
	"tandem/modules/premium"
)

var _ premium.PurchaseVerifier = (*Verifier)(nil)

const (
	codePurchase     = "invalid_purchase"
	codeNotification = "invalid_notification"
)

// Lifetime is the end of a non-consumable purchase: it never expires.
var Lifetime = time.Date(9999, 12, 31, 23, 59, 59, 999e6, time.UTC)

// appleRootPEM is Apple Root CA - G3, the root of every StoreKit chain
// (https://www.apple.com/certificateauthority/, SHA-256 6334…9179, checked
// by a test).
//
//go:embed AppleRootCA-G3.pem
var appleRootPEM []byte

// Config is what the verifier accepts.
type Config struct {
	BundleID string // the app's; required
	// Environment is "Production" (the default) or "Sandbox"; a transaction
	// of the other environment is refused, so a TestFlight purchase never
	// unlocks production.
	Environment string
	// Plans maps a productId to the plan text stored (e.g. "9.99"). Empty:
	// the plan is the productId. Otherwise a product not in it is refused.
	Plans map[string]string
	Roots *x509.CertPool // nil: Apple Root CA - G3
}

// Verifier checks StoreKit signed data against Config.
type Verifier struct {
	bundleID string
	env      string
	plans    map[string]string
	roots    *x509.CertPool
}

// New checks cfg; a bad one is a configuration error, not a refusal.
func New(cfg Config) (*Verifier, error) {
	if cfg.BundleID == "" {
		return nil, errors.New("appstore: the bundle id is required")
	}
	env := cfg.Environment
	if env == "" {
		env = Production
	}
	if env != Production && env != Sandbox {
		return nil, fmt.Errorf("appstore: environment %q is neither Production nor Sandbox", env)
	}
	for product, plan := range cfg.Plans {
		if plan == "" {
			return nil, fmt.Errorf("appstore: product %q has an empty plan", product)
		}
	}
	roots := cfg.Roots
	if roots == nil {
		roots = x509.NewCertPool()
		if !roots.AppendCertsFromPEM(appleRootPEM) {
			return nil, errors.New("appstore: the embedded Apple root does not parse")
		}
	}
	return &Verifier{bundleID: cfg.BundleID, env: env, plans: maps.Clone(cfg.Plans), roots: roots}, nil
}

// Verify reads p.Proof.SignedTransaction and returns the purchase as Apple
// signed it; the caller sets the user. Refusals are core.KindInvalid with
// code invalid_purchase, or purchase_in_use when the transaction's
// appAccountToken names another user than p.UserID.
func (v *Verifier) Verify(_ context.Context, p premium.Purchase) (premium.Purchase, error) {
	if p.Proof.SignedTransaction == "" {
		return premium.Purchase{}, core.Invalid(codePurchase, "appstore.signedTransactionInfoRequired", "signedTransactionInfo is required")
	}
	t, err := v.transaction(p.Proof.SignedTransaction)
	if err != nil {
		return premium.Purchase{}, refuse(codePurchase, err)
	}
	out, err := v.purchase(t)
	if err != nil {
		return premium.Purchase{}, refuse(codePurchase, err)
	}
	// The app sets appAccountToken to the buyer's id, a UUID (compared in
	// any case: Swift writes it upper case). Another id means a transaction
	// bought for another account, sent by someone else.
	if t.AppAccountToken != "" && !strings.EqualFold(t.AppAccountToken, p.UserID) {
		return premium.Purchase{}, premium.ErrPurchaseInUse()
	}
	return out, nil
}

func (v *Verifier) transaction(jws string) (Transaction, error) {
	payload, err := verifyJWS(jws, v.roots)
	if err != nil {
		return Transaction{}, err
	}
	var t Transaction
	if err := json.Unmarshal(payload, &t); err != nil {
		return Transaction{}, failWrap(err, "appstore.payloadNotTransaction", "the payload is not a transaction")
	}
	return t, nil
}

// purchase maps a verified transaction. State is active or revoked only:
// expiry is decided against the clock by whoever reads EndDate.
func (v *Verifier) purchase(t Transaction) (premium.Purchase, error) {
	if err := v.checkApp(t.BundleID, t.Environment, false); err != nil {
		return premium.Purchase{}, err
	}
	if t.OriginalTransactionID == "" || t.ProductID == "" || t.PurchaseDate <= 0 {
		return premium.Purchase{}, fail("appstore.originalTransactionIdProductIdPurchaseDateRequired", "originalTransactionId, productId and purchaseDate are required")
	}
	end, err := endDate(t)
	if err != nil {
		return premium.Purchase{}, err
	}
	plan, err := v.plan(t.ProductID)
	if err != nil {
		return premium.Purchase{}, err
	}
	p := premium.Purchase{Plan: plan, StartDate: millis(t.PurchaseDate), EndDate: end,
		BillingID: t.OriginalTransactionID, Platform: core.PlatformIOS, Store: premium.StoreAppStore,
		StoreRef: t.OriginalTransactionID, ProductID: t.ProductID, State: premium.StateActive,
		SignedAt: millis(t.SignedDate)}
	if t.RevocationDate > 0 {
		p.State = premium.StateRevoked
		if r := millis(t.RevocationDate); r.Before(p.EndDate) {
			p.EndDate = r
		}
	}
	return p, nil
}

// checkApp refuses data about another app or from the other environment;
// notification says what the data is (a transaction otherwise), each
// refusal a whole sentence so that it translates as one. The environments
// are Apple's names ("Sandbox", "Production").
func (v *Verifier) checkApp(bundleID, env string, notification bool) error {
	switch {
	case bundleID != v.bundleID:
		return fail("appstore.bundleIdNotApp", "bundle id %q is not this app's", bundleID)
	case env == "" && notification:
		return fail("appstore.notificationNoEnvironment", "the notification names no environment")
	case env == "":
		return fail("appstore.transactionNoEnvironment", "the transaction names no environment")
	case env != v.env && notification:
		return fail("appstore.notificationOtherEnvironment", "a %s notification in %s", env, v.env)
	case env != v.env:
		return fail("appstore.transactionOtherEnvironment", "a %s transaction in %s", env, v.env)
	}
	return nil
}

func endDate(t Transaction) (time.Time, error) {
	switch t.Type {
	case TypeAutoRenewable, TypeNonRenewing:
		if t.ExpiresDate <= 0 {
			return time.Time{}, fail("appstore.subscriptionWithoutExpiresDate", "a subscription without expiresDate")
		}
		return millis(t.ExpiresDate), nil
	case TypeNonConsumable:
		return Lifetime, nil
	case TypeConsumable:
		return time.Time{}, fail("appstore.consumableNotSubscription", "a consumable is not a subscription")
	}
	return time.Time{}, fail("appstore.unknownTransactionType", "unknown transaction type %q", t.Type)
}

func (v *Verifier) plan(productID string) (string, error) {
	if len(v.plans) == 0 {
		return productID, nil
	}
	plan, ok := v.plans[productID]
	if !ok {
		return "", fail("appstore.unknownProduct", "unknown product %q", productID)
	}
	return plan, nil
}

func millis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// failure is why signed data is refused; Verify and Notification turn it
// into core.Invalid with their own code, the cause kept for the logs. format
// is a constant (the catalog key of the message's translations), args fill it.
type failure struct {
	id     string
	format string
	args   []any
	cause  error
}

func (f *failure) Error() string {
	if len(f.args) == 0 {
		return f.format
	}
	return fmt.Sprintf(f.format, f.args...)
}
func (f *failure) Unwrap() error { return f.cause }

func fail(id, format string, args ...any) error {
	return &failure{id: id, format: format, args: args}
}
func failWrap(cause error, id, format string, args ...any) error {
	return &failure{id: id, format: format, args: args, cause: cause}
}

// within names the signed item a failure is about (signedTransactionInfo
// inside a notification).
func within(item string, err error) error {
	var f *failure
	if errors.As(err, &f) {
		// No catalog holds the prefixed text: it is answered in English.
		return &failure{format: "%s: " + f.format, args: append([]any{item}, f.args...), cause: f.cause}
	}
	return err
}

func refuse(code string, err error) error {
	var f *failure
	if errors.As(err, &f) {
		e := core.Invalid(code, f.id, f.format, f.args...)
		if f.cause != nil {
			e = e.Wrap(f.cause)
		}
		return e
	}
	return core.Internal(err)
}
