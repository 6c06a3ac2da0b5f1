package appstore

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"time"
)

const (
	// MaxJWS bounds one signed item: Apple's are about 5 KB with their
	// three certificates.
	MaxJWS = 64 << 10
	// maxChain is leaf, intermediate and root; more is not Apple's shape
	// and only costs parsing.
	maxChain = 3
)

// Apple marks the certificates of its StoreKit chain with these extensions.
// Without the check any certificate ever issued under Apple's root (a
// developer's code-signing certificate, say) could sign a purchase.
var (
	oidLeaf         = asn1.ObjectIdentifier{1, 2, 840, 113635, 100, 6, 11, 1}
	oidIntermediate = asn1.ObjectIdentifier{1, 2, 840, 113635, 100, 6, 2, 1}
)

// header is the JWS protected header as Apple writes it.
type header struct {
	Alg string   `json:"alg"`
	X5c []string `json:"x5c"`
}

// verifyJWS checks a compact JWS as Apple signs StoreKit data and returns
// its payload: ES256 by the x5c leaf, whose chain leads to one of roots and
// was valid when the payload says it was signed (signedDate), so data Apple
// signed stays verifiable after its leaf expires.
func verifyJWS(token string, roots *x509.CertPool) ([]byte, error) {
	if len(token) > MaxJWS {
		return nil, fail("appstore.signedDataLargerThan64", "the signed data is larger than 64 KB")
	}
	h, payload, sig, err := split(token)
	if err != nil {
		return nil, err
	}
	chain, err := parseHeader(h)
	if err != nil {
		return nil, err
	}
	if err := checkSignature(chain[0], token[:strings.LastIndexByte(token, '.')], sig); err != nil {
		return nil, err
	}
	signedAt, err := signedDate(payload)
	if err != nil {
		return nil, err
	}
	if err := checkChain(chain, roots, signedAt); err != nil {
		return nil, err
	}
	return payload, nil
}

// split decodes the three parts of a compact JWS; the signature is checked
// over the text, so only the header and payload need their bytes.
func split(token string) (header, payload, sig []byte, err error) {
	parts := strings.SplitN(token, ".", 4)
	if len(parts) != 3 {
		return nil, nil, nil, fail("appstore.notCompactJWS", "not a compact JWS")
	}
	dec := base64.RawURLEncoding.Strict()
	header, err1 := dec.DecodeString(parts[0])
	payload, err2 := dec.DecodeString(parts[1])
	sig, err3 := dec.DecodeString(parts[2])
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil, nil, nil, failWrap(err, "appstore.jWSNotBase64url", "the JWS is not base64url")
	}
	return header, payload, sig, nil
}

// parseHeader accepts ES256 only: the algorithm comes from the sender, so
// trusting it would let "none" or HS256 (keyed with the public key) through.
func parseHeader(raw []byte) ([]*x509.Certificate, error) {
	var h header
	if err := json.Unmarshal(raw, &h); err != nil {
		return nil, failWrap(err, "appstore.jWSHeaderDoesNotParse", "the JWS header does not parse")
	}
	if h.Alg != "ES256" {
		return nil, fail("appstore.algES256", "alg must be ES256")
	}
	if len(h.X5c) < 2 || len(h.X5c) > maxChain {
		return nil, fail("appstore.x5cHoldLeafIntermediateRoot", "x5c must hold the leaf, intermediate and root certificates")
	}
	chain := make([]*x509.Certificate, len(h.X5c))
	for i, b64 := range h.X5c {
		der, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			return nil, failWrap(err, "appstore.x5cHoldsCertificateThatDoes", "x5c holds a certificate that does not parse")
		}
		if chain[i], err = x509.ParseCertificate(der); err != nil {
			return nil, failWrap(err, "appstore.x5cHoldsCertificateThatDoes", "x5c holds a certificate that does not parse")
		}
	}
	return chain, nil
}

// checkSignature verifies a JWS ES256 signature: raw r||s, 32 bytes each,
// not the ASN.1 form crypto/ecdsa signs.
func checkSignature(leaf *x509.Certificate, signingInput string, sig []byte) error {
	key, ok := leaf.PublicKey.(*ecdsa.PublicKey)
	if !ok || key.Curve != elliptic.P256() {
		return fail("appstore.signingCertificateHasNoP", "the signing certificate has no P-256 key")
	}
	if len(sig) != 64 {
		return fail("appstore.signatureDoesNotVerify", "signature does not verify")
	}
	digest := sha256.Sum256([]byte(signingInput))
	r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
	if !ecdsa.Verify(key, digest[:], r, s) {
		return fail("appstore.signatureDoesNotVerify", "signature does not verify")
	}
	return nil
}

// signedDate reads the one field the chain check needs before the payload
// is trusted.
func signedDate(payload []byte) (time.Time, error) {
	var p struct {
		SignedDate int64 `json:"signedDate"`
	}
	if err := json.Unmarshal(payload, &p); err != nil {
		return time.Time{}, failWrap(err, "appstore.payloadNotJSONObject", "the payload is not a JSON object")
	}
	if p.SignedDate <= 0 {
		return time.Time{}, fail("appstore.signedDateMissing", "signedDate is missing")
	}
	return time.UnixMilli(p.SignedDate), nil
}

// checkChain verifies leaf ← intermediate ← root at the signing time. Only
// roots is trusted: the root Apple puts in x5c is ignored.
func checkChain(chain []*x509.Certificate, roots *x509.CertPool, at time.Time) error {
	leaf, inter := chain[0], chain[1]
	if !hasExtension(leaf, oidLeaf) {
		return fail("appstore.signingCertificateNotAppleStoreKit", "the signing certificate is not Apple's StoreKit certificate")
	}
	if !hasExtension(inter, oidIntermediate) {
		return fail("appstore.intermediateCertificateNotApple", "the intermediate certificate is not Apple's")
	}
	pool := x509.NewCertPool()
	pool.AddCert(inter)
	chains, err := leaf.Verify(x509.VerifyOptions{Roots: roots, Intermediates: pool,
		CurrentTime: at, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
	if err != nil {
		return chainFailure(err)
	}
	for _, c := range chains { // the marked intermediate must be on the path, not skipped
		if len(c) == 3 && c[1].Equal(inter) {
			return nil
		}
	}
	return fail("appstore.certificateChainDoesNotLead", "certificate chain does not lead to the Apple root")
}

func chainFailure(err error) error {
	var invalid x509.CertificateInvalidError
	if errors.As(err, &invalid) && invalid.Reason == x509.Expired {
		return failWrap(err, "appstore.certificateWasNotValidSignedDate", "a certificate was not valid at signedDate")
	}
	var unknown x509.UnknownAuthorityError
	if errors.As(err, &unknown) {
		return failWrap(err, "appstore.certificateChainDoesNotLead", "certificate chain does not lead to the Apple root")
	}
	return failWrap(err, "appstore.certificateChainDoesNotVerify", "certificate chain does not verify")
}

func hasExtension(c *x509.Certificate, oid asn1.ObjectIdentifier) bool {
	for _, e := range c.Extensions {
		if e.Id.Equal(oid) {
			return true
		}
	}
	return false
}
