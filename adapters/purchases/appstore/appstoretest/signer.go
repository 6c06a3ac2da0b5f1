// Package appstoretest signs StoreKit 2 data as Apple does, with a test
// certificate chain, for tests of package appstore and of anything behind
// it (HTTP scenarios). Its chain carries Apple's marker extensions, so a
// verifier that trusts RootPool() accepts what it signs.
//
// The committed chain under testdata is regenerated with
//
//	go test ./adapters/purchases/appstore/appstoretest -run TestCommittedPKI -update
package appstoretest

import (
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"embed"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"path"
	"sync"

	"tandem/adapters/purchases/appstore"
)

//go:embed testdata/*.pem
var testdata embed.FS

// Signer signs with one chain: root, intermediate and leaf.
type Signer struct{ c chain }

// committed is the chain under testdata, loaded once.
var committed = sync.OnceValues(func() (chain, error) {
	files := map[string][]byte{}
	entries, err := testdata.ReadDir("testdata")
	if err != nil {
		return chain{}, err
	}
	for _, e := range entries {
		if files[e.Name()], err = testdata.ReadFile(path.Join("testdata", e.Name())); err != nil {
			return chain{}, err
		}
	}
	return load(files)
})

// New returns a signer with the committed chain (valid 2020 to 2099). It
// panics if testdata is broken: that is a bug of this package, not of a test.
func New() *Signer {
	c, err := committed()
	if err != nil {
		panic("appstoretest: the committed chain does not load: " + err.Error())
	}
	return &Signer{c: c}
}

// Generate returns a signer with a new chain under a new root shaped by p:
// an expired leaf, a leaf or intermediate without Apple's marker, or, with
// the zero PKI, a chain under a root nobody trusts.
func Generate(p PKI) *Signer {
	c, err := generate(p)
	if err != nil {
		panic("appstoretest: " + err.Error())
	}
	return &Signer{c: c}
}

// RootPool trusts this signer's root only: appstore.Config.Roots.
func (s *Signer) RootPool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(s.c.root.cert)
	return pool
}

// RootPEM is the root certificate as PEM.
func (s *Signer) RootPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.c.root.cert.Raw})
}

// Header is a JWS header; Signer.Header is the one Apple would write.
type Header struct {
	Alg string   `json:"alg"`
	X5c []string `json:"x5c"`
}

// Header returns ES256 with x5c = leaf, intermediate, root.
func (s *Signer) Header() Header {
	x5c := []string{}
	for _, p := range []part{s.c.leaf, s.c.intermediate, s.c.root} {
		x5c = append(x5c, base64.StdEncoding.EncodeToString(p.cert.Raw))
	}
	return Header{Alg: "ES256", X5c: x5c}
}

// Transaction signs t as a signedTransactionInfo.
func (s *Signer) Transaction(t appstore.Transaction) string { return s.Sign(t) }

// Renewal signs r as a signedRenewalInfo.
func (s *Signer) Renewal(r appstore.RenewalInfo) string { return s.Sign(r) }

// Notification signs n and returns the webhook body Apple posts,
// {"signedPayload": "<JWS>"}.
func (s *Signer) Notification(n appstore.NotificationPayload) []byte {
	body, _ := json.Marshal(map[string]string{"signedPayload": s.Sign(n)})
	return body
}

// Sign signs v's JSON with the usual header.
func (s *Signer) Sign(v any) string {
	payload, err := json.Marshal(v)
	if err != nil {
		panic("appstoretest: " + err.Error())
	}
	return s.SignRaw(s.Header(), payload)
}

// SignRaw signs payload under h with the leaf's key, as ES256 whatever
// h.Alg says, so a test can send a header the verifier must refuse.
func (s *Signer) SignRaw(h Header, payload []byte) string {
	hj, err := json.Marshal(h)
	if err != nil {
		panic("appstoretest: " + err.Error())
	}
	input := base64.RawURLEncoding.EncodeToString(hj) + "." + base64.RawURLEncoding.EncodeToString(payload)
	return input + "." + base64.RawURLEncoding.EncodeToString(es256(s.c.leaf.key, input))
}

// es256 is the JWS form of an ECDSA P-256 signature: r||s, 32 bytes each.
func es256(key *ecdsa.PrivateKey, input string) []byte {
	digest := sha256.Sum256([]byte(input))
	r, sv, err := ecdsa.Sign(rand.Reader, key, digest[:])
	if err != nil {
		panic("appstoretest: " + err.Error())
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	sv.FillBytes(sig[32:])
	return sig
}
