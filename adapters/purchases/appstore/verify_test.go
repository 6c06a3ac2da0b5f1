package appstore_test

import (
	"crypto/x509"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"tandem/adapters/purchases/appstore"
	"tandem/adapters/purchases/appstore/appstoretest"
	"tandem/core"
	"tandem/modules/premium"
)

func TestVerify(t *testing.T) {
	t.Parallel()
	var (
		untrusted       = appstoretest.Generate(appstoretest.PKI{})
		expiredLeaf     = appstoretest.Generate(appstoretest.PKI{LeafNotAfter: time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)})
		notYetLeaf      = appstoretest.Generate(appstoretest.PKI{LeafNotBefore: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
		noLeafOID       = appstoretest.Generate(appstoretest.PKI{NoLeafOID: true})
		noIntermediate  = appstoretest.Generate(appstoretest.PKI{NoIntermediateOID: true})
		leafUnderRoot   = appstoretest.Generate(appstoretest.PKI{LeafUnderRoot: true})
		plans           = func(c *appstore.Config) { c.Plans = map[string]string{"tandem.premium.monthly": "9.99"} }
		sandbox         = func(c *appstore.Config) { c.Environment = appstore.Sandbox }
		inSandbox       = func(t *appstore.Transaction) { t.Environment = appstore.Sandbox }
		revokedTx       = func(t *appstore.Transaction) { t.RevocationDate, t.RevocationReason = revoked.UnixMilli(), new(int) }
		header          = signer.Header()
		validPayload, _ = jsonOf(sub())
	)
	withHeader := func(change func(*appstoretest.Header)) string {
		h := signer.Header()
		change(&h)
		return signer.SignRaw(h, validPayload)
	}
	cases := []struct {
		name    string
		jws     string
		roots   *x509.CertPool // nil: the committed test root
		cfg     []config
		want    func(p *premium.Purchase) // changes to active()
		wantMsg string
	}{
		{name: "valid auto-renewable subscription", jws: signer.Transaction(sub()), want: func(*premium.Purchase) {}},
		{name: "plan map gives the plan", jws: signer.Transaction(sub()), cfg: []config{plans},
			want: func(p *premium.Purchase) { p.Plan = "9.99" }},
		{name: "unknown product with a plan map", jws: signer.Transaction(sub(func(t *appstore.Transaction) { t.ProductID = "tandem.other" })),
			cfg: []config{plans}, wantMsg: `unknown product "tandem.other"`},
		{name: "revoked transaction ends at the revocation", jws: signer.Transaction(sub(revokedTx)),
			want: func(p *premium.Purchase) { p.State, p.EndDate = premium.StateRevoked, revoked }},
		{name: "revocation after the expiry keeps the expiry",
			jws:  signer.Transaction(sub(func(t *appstore.Transaction) { t.RevocationDate = expires.Add(time.Hour).UnixMilli() })),
			want: func(p *premium.Purchase) { p.State = premium.StateRevoked }},
		{name: "non-consumable is a lifetime purchase",
			jws:  signer.Transaction(sub(func(t *appstore.Transaction) { t.Type, t.ExpiresDate = appstore.TypeNonConsumable, 0 })),
			want: func(p *premium.Purchase) { p.EndDate = appstore.Lifetime }},
		{name: "refunded non-consumable ends at the revocation",
			jws:  signer.Transaction(sub(revokedTx, func(t *appstore.Transaction) { t.Type, t.ExpiresDate = appstore.TypeNonConsumable, 0 })),
			want: func(p *premium.Purchase) { p.State, p.EndDate = premium.StateRevoked, revoked }},
		{name: "non-renewing subscription", jws: signer.Transaction(sub(func(t *appstore.Transaction) { t.Type = appstore.TypeNonRenewing })),
			want: func(*premium.Purchase) {}},
		{name: "sandbox transaction in a sandbox verifier", jws: signer.Transaction(sub(inSandbox)), cfg: []config{sandbox},
			want: func(*premium.Purchase) {}},
		{name: "consumable refused", jws: signer.Transaction(sub(func(t *appstore.Transaction) { t.Type = appstore.TypeConsumable })),
			wantMsg: "a consumable is not a subscription"},
		{name: "unknown type refused", jws: signer.Transaction(sub(func(t *appstore.Transaction) { t.Type = "Gift" })),
			wantMsg: `unknown transaction type "Gift"`},
		{name: "subscription without expiresDate", jws: signer.Transaction(sub(func(t *appstore.Transaction) { t.ExpiresDate = 0 })),
			wantMsg: "a subscription without expiresDate"},
		{name: "missing originalTransactionId", jws: signer.Transaction(sub(func(t *appstore.Transaction) { t.OriginalTransactionID = "" })),
			wantMsg: "originalTransactionId, productId and purchaseDate are required"},
		{name: "wrong bundle id", jws: signer.Transaction(sub(func(t *appstore.Transaction) { t.BundleID = "com.other.app" })),
			wantMsg: `bundle id "com.other.app" is not this app's`},
		{name: "sandbox transaction in production", jws: signer.Transaction(sub(inSandbox)),
			wantMsg: "a Sandbox transaction in Production"},
		{name: "production transaction in sandbox", jws: signer.Transaction(sub()), cfg: []config{sandbox},
			wantMsg: "a Production transaction in Sandbox"},
		{name: "transaction without environment", jws: signer.Transaction(sub(func(t *appstore.Transaction) { t.Environment = "" })),
			wantMsg: "the transaction names no environment"},
		{name: "missing proof", jws: "", wantMsg: "signedTransactionInfo is required"},

		// The signature and its chain.
		{name: "root not trusted", jws: untrusted.Transaction(sub()),
			wantMsg: "certificate chain does not lead to the Apple root"},
		{name: "leaf expired before signedDate", jws: expiredLeaf.Transaction(sub()), roots: expiredLeaf.RootPool(),
			wantMsg: "a certificate was not valid at signedDate"},
		{name: "leaf expired since, but valid when it signed",
			jws:   expiredLeaf.Transaction(sub(func(t *appstore.Transaction) { t.SignedDate = time.Date(2020, 6, 1, 0, 0, 0, 0, time.UTC).UnixMilli() })),
			roots: expiredLeaf.RootPool(),
			want:  func(p *premium.Purchase) { p.SignedAt = time.Date(2020, 6, 1, 0, 0, 0, 0, time.UTC) }},
		{name: "leaf signed by the root, skipping the intermediate", jws: leafUnderRoot.Transaction(sub()), roots: leafUnderRoot.RootPool(),
			wantMsg: "certificate chain does not lead to the Apple root"},
		{name: "leaf not yet valid at signedDate", jws: notYetLeaf.Transaction(sub()), roots: notYetLeaf.RootPool(),
			wantMsg: "a certificate was not valid at signedDate"},
		{name: "leaf without Apple's marker", jws: noLeafOID.Transaction(sub()), roots: noLeafOID.RootPool(),
			wantMsg: "the signing certificate is not Apple's StoreKit certificate"},
		{name: "intermediate without Apple's marker", jws: noIntermediate.Transaction(sub()), roots: noIntermediate.RootPool(),
			wantMsg: "the intermediate certificate is not Apple's"},
		{name: "tampered payload", jws: tamper(signer.Transaction(sub()), 1), wantMsg: "signature does not verify"},
		{name: "tampered signature", jws: tamper(signer.Transaction(sub()), 2), wantMsg: "signature does not verify"},
		{name: "header changed after signing", jws: respaceHeader(signer.Transaction(sub())), wantMsg: "signature does not verify"},
		{name: "header not JSON", jws: "bm90IGpzb24.e30.AAAA", wantMsg: "the JWS header does not parse"},
		{name: "signature of another payload",
			jws:     swapSignature(signer.Transaction(sub()), signer.Transaction(sub(func(t *appstore.Transaction) { t.ExpiresDate++ }))),
			wantMsg: "signature does not verify"},
		{name: "short signature", jws: strings.Join(strings.Split(signer.Transaction(sub()), ".")[:2], ".") + ".AAAA",
			wantMsg: "signature does not verify"},
		{name: "alg none", jws: withHeader(func(h *appstoretest.Header) { h.Alg = "none" }), wantMsg: "alg must be ES256"},
		{name: "alg HS256", jws: withHeader(func(h *appstoretest.Header) { h.Alg = "HS256" }), wantMsg: "alg must be ES256"},
		{name: "missing x5c", jws: withHeader(func(h *appstoretest.Header) { h.X5c = nil }),
			wantMsg: "x5c must hold the leaf, intermediate and root certificates"},
		{name: "x5c with the leaf only", jws: withHeader(func(h *appstoretest.Header) { h.X5c = h.X5c[:1] }),
			wantMsg: "x5c must hold the leaf, intermediate and root certificates"},
		{name: "x5c with four certificates", jws: withHeader(func(h *appstoretest.Header) { h.X5c = append(h.X5c, h.X5c[2]) }),
			wantMsg: "x5c must hold the leaf, intermediate and root certificates"},
		{name: "x5c without its root is enough", jws: withHeader(func(h *appstoretest.Header) { h.X5c = h.X5c[:2] }),
			want: func(*premium.Purchase) {}},
		{name: "garbage x5c", jws: withHeader(func(h *appstoretest.Header) { h.X5c = []string{"Z2FyYmFnZQ==", "Z2FyYmFnZQ=="} }),
			wantMsg: "x5c holds a certificate that does not parse"},
		{name: "x5c not base64", jws: withHeader(func(h *appstoretest.Header) { h.X5c[1] = "!!" }),
			wantMsg: "x5c holds a certificate that does not parse"},
		{name: "leaf and intermediate swapped", jws: withHeader(func(h *appstoretest.Header) { h.X5c[0], h.X5c[1] = h.X5c[1], h.X5c[0] }),
			wantMsg: "signature does not verify"},
		{name: "the root as its own intermediate",
			jws:     withHeader(func(h *appstoretest.Header) { h.X5c[1] = header.X5c[2] }),
			wantMsg: "the intermediate certificate is not Apple's"},
		{name: "not a JWS", jws: "not.a-jws", wantMsg: "not a compact JWS"},
		{name: "too many parts", jws: signer.Transaction(sub()) + ".x", wantMsg: "not a compact JWS"},
		{name: "not base64url", jws: "a.b.c!", wantMsg: "the JWS is not base64url"},
		{name: "larger than 64 KB", jws: strings.Repeat("a", appstore.MaxJWS+1), wantMsg: "the signed data is larger than 64 KB"},
		{name: "payload not JSON", jws: signer.SignRaw(header, []byte("[1,2]")), wantMsg: "the payload is not a JSON object"},
		{name: "payload without signedDate", jws: signer.SignRaw(header, []byte(`{"bundleId":"com.tandem.app"}`)),
			wantMsg: "signedDate is missing"},
		{name: "payload of the wrong shape", jws: signer.SignRaw(header, []byte(`{"signedDate":1748772000000,"bundleId":7}`)),
			wantMsg: "the payload is not a transaction"},
		{name: "padded base64 parts",
			jws:     base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"ES256"}`)) + "==.e30.AAAA",
			wantMsg: "the JWS is not base64url"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := verify(t, newVerifier(t, tc.roots, tc.cfg...), tc.jws)
			if tc.wantMsg != "" {
				wantRefusal(t, err, "invalid_purchase", tc.wantMsg)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := active()
			tc.want(&want)
			if got != want {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}

// TestVerifyReadsOnlyTheProof: what the client claims besides its proof
// does not reach the result.
func TestVerifyReadsOnlyTheProof(t *testing.T) {
	t.Parallel()
	claim := premium.Purchase{UserID: buyer, Plan: "free-forever", StartDate: bought, EndDate: appstore.Lifetime,
		State: premium.StateActive, Store: premium.StoreAppStore, StoreRef: "someone-elses",
		Proof: premium.Proof{SignedTransaction: signer.Transaction(sub())}}
	got, err := newVerifier(t, nil).Verify(t.Context(), claim)
	if err != nil {
		t.Fatal(err)
	}
	if got != active() {
		t.Errorf("got %+v, want %+v", got, active())
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		cfg     appstore.Config
		wantErr string
	}{
		{name: "defaults", cfg: appstore.Config{BundleID: bundle}},
		{name: "sandbox", cfg: appstore.Config{BundleID: bundle, Environment: appstore.Sandbox}},
		{name: "no bundle id", cfg: appstore.Config{}, wantErr: "appstore: the bundle id is required"},
		{name: "unknown environment", cfg: appstore.Config{BundleID: bundle, Environment: "Xcode"},
			wantErr: `appstore: environment "Xcode" is neither Production nor Sandbox`},
		{name: "empty plan", cfg: appstore.Config{BundleID: bundle, Plans: map[string]string{"p": ""}},
			wantErr: `appstore: product "p" has an empty plan`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := appstore.New(tc.cfg)
			if got := errString(err); got != tc.wantErr {
				t.Errorf("New: %q, want %q", got, tc.wantErr)
			}
		})
	}
}

// TestPlansAreCopied: changing the caller's map after New changes nothing.
func TestPlansAreCopied(t *testing.T) {
	t.Parallel()
	plans := map[string]string{"tandem.premium.monthly": "9.99"}
	v := newVerifier(t, nil, func(c *appstore.Config) { c.Plans = plans })
	plans["tandem.premium.monthly"] = "0.00"
	got, err := verify(t, v, signer.Transaction(sub()))
	if err != nil || got.Plan != "9.99" {
		t.Fatalf("plan %q, err %v; want 9.99", got.Plan, err)
	}
}

// TestVerifyAppAccountTokenIsTheBuyer: a transaction the app bought for
// one user (appAccountToken, that user's id) is no other user's; one
// without a token is anyone's who holds it first.
func TestVerifyAppAccountTokenIsTheBuyer(t *testing.T) {
	t.Parallel()
	v := newVerifier(t, nil)
	noToken := signer.Transaction(sub(func(t *appstore.Transaction) { t.AppAccountToken = "" }))
	cases := []struct {
		name, user, jws string
		inUse           bool
	}{
		{name: "the buyer", user: buyer, jws: signer.Transaction(sub())},
		{name: "the buyer, the token in upper case", user: buyer,
			jws: signer.Transaction(sub(func(t *appstore.Transaction) { t.AppAccountToken = strings.ToUpper(buyer) }))},
		{name: "the buyer's id in upper case", user: strings.ToUpper(buyer), jws: signer.Transaction(sub())},
		{name: "another user", user: "0197a1b2-0000-7000-8000-000000000001", jws: signer.Transaction(sub()), inUse: true},
		{name: "no user", user: "", jws: signer.Transaction(sub()), inUse: true},
		{name: "no token: any user", user: "0197a1b2-0000-7000-8000-000000000001", jws: noToken},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := v.Verify(t.Context(), premium.Purchase{UserID: tc.user, Proof: premium.Proof{SignedTransaction: tc.jws}})
			if tc.inUse {
				if e := core.As(err); err == nil || e.Kind != core.KindConflict || e.Code != "purchase_in_use" {
					t.Fatalf("got %v; want conflict purchase_in_use", err)
				}
				return
			}
			if err != nil || got != active() {
				t.Fatalf("got %+v, %v; want %+v", got, err, active())
			}
		})
	}
}
