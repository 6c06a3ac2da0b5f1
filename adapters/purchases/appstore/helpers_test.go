package appstore_test

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"tandem/adapters/purchases/appstore"
	"tandem/adapters/purchases/appstore/appstoretest"
	"tandem/core"
	"tandem/modules/premium"
)

const (
	bundle = "com.tandem.app"
	buyer  = "7e3fb20b-4cdb-47cc-936d-99d65de6c1ee" // the user id the app set as appAccountToken
)

var (
	signer   = appstoretest.New()
	bought   = time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)
	expires  = bought.AddDate(0, 1, 0)
	signedAt = bought.Add(time.Minute)
	revoked  = bought.Add(72 * time.Hour)
)

// sub is a monthly auto-renewable subscription as Apple signs it.
func sub(change ...func(*appstore.Transaction)) appstore.Transaction {
	t := appstore.Transaction{TransactionID: "2000000000000002", OriginalTransactionID: "2000000000000001",
		BundleID: bundle, ProductID: "tandem.premium.monthly", PurchaseDate: bought.UnixMilli(),
		OriginalPurchaseDate: bought.UnixMilli(), ExpiresDate: expires.UnixMilli(), Type: appstore.TypeAutoRenewable,
		Environment: appstore.Production, SignedDate: signedAt.UnixMilli(), AppAccountToken: buyer}
	for _, c := range change {
		c(&t)
	}
	return t
}

// active is sub() as the verifier returns it.
func active() premium.Purchase {
	return premium.Purchase{Plan: "tandem.premium.monthly", StartDate: bought, EndDate: expires,
		BillingID: "2000000000000001", Platform: core.PlatformIOS, Store: premium.StoreAppStore,
		StoreRef: "2000000000000001", ProductID: "tandem.premium.monthly", State: premium.StateActive, SignedAt: signedAt}
}

// config is the verifier's: this app, Production, trusting roots (the
// committed test root when nil).
type config func(*appstore.Config)

func newVerifier(t *testing.T, roots *x509.CertPool, change ...config) *appstore.Verifier {
	t.Helper()
	if roots == nil {
		roots = signer.RootPool()
	}
	cfg := appstore.Config{BundleID: bundle, Roots: roots}
	for _, c := range change {
		c(&cfg)
	}
	v, err := appstore.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// proof is the buyer's claim of jws.
func proof(jws string) premium.Purchase {
	return premium.Purchase{UserID: buyer, Proof: premium.Proof{SignedTransaction: jws}}
}

func verify(t *testing.T, v *appstore.Verifier, jws string) (premium.Purchase, error) {
	t.Helper()
	return v.Verify(context.Background(), proof(jws))
}

// wantRefusal checks err is core.Invalid with code and message msg.
func wantRefusal(t *testing.T, err error, code, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted; want %s %q", code, msg)
	}
	e := core.As(err)
	if e.Kind != core.KindInvalid || e.Code != code || e.Message != msg {
		t.Fatalf("got %v (kind %v, code %q, message %q); want %s %q", err, e.Kind, e.Code, e.Message, code, msg)
	}
}

// tamper changes one character in the middle of part i (0 header, 1
// payload, 2 signature) of a compact JWS, keeping it base64url.
func tamper(jws string, i int) string {
	parts := strings.Split(jws, ".")
	b := []byte(parts[i])
	mid := len(b) / 2
	if b[mid] == 'A' {
		b[mid] = 'B'
	} else {
		b[mid] = 'A'
	}
	parts[i] = string(b)
	return strings.Join(parts, ".")
}

// swapSignature puts the signature of b on a.
func swapSignature(a, b string) string {
	return a[:strings.LastIndexByte(a, '.')] + b[strings.LastIndexByte(b, '.'):]
}

// respaceHeader re-encodes the header with a trailing space: the same
// meaning, other bytes, so the signature no longer covers it.
func respaceHeader(jws string) string {
	parts := strings.Split(jws, ".")
	h, _ := base64.RawURLEncoding.DecodeString(parts[0])
	parts[0] = base64.RawURLEncoding.EncodeToString(append(h, ' '))
	return strings.Join(parts, ".")
}

func jsonOf(v any) ([]byte, error) { return json.Marshal(v) }

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
