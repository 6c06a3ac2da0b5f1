package appstoretest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"fmt"
	"math/big"
	"time"
)

// The validity of the committed chain and the default of a generated one.
var (
	NotBefore = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	NotAfter  = time.Date(2099, 12, 31, 23, 59, 59, 0, time.UTC)
)

// Apple's marker extensions (the verifier requires them), value ASN.1 NULL
// as in Apple's certificates.
var (
	oidLeaf         = asn1.ObjectIdentifier{1, 2, 840, 113635, 100, 6, 11, 1}
	oidIntermediate = asn1.ObjectIdentifier{1, 2, 840, 113635, 100, 6, 2, 1}
	asn1Null        = []byte{0x05, 0x00}
)

// PKI shapes a generated chain; the zero value is shaped like Apple's.
type PKI struct {
	LeafNotBefore, LeafNotAfter time.Time // zero: NotBefore, NotAfter
	NoLeafOID                   bool      // a leaf without Apple's StoreKit marker
	NoIntermediateOID           bool      // an intermediate without Apple's marker
	LeafUnderRoot               bool      // the root signs the leaf: x5c's intermediate is off the path
}

// part is one certificate of a chain with its key.
type part struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

// chain is root, intermediate and leaf.
type chain struct{ root, intermediate, leaf part }

func generate(p PKI) (chain, error) {
	leafFrom, leafTo := p.LeafNotBefore, p.LeafNotAfter
	if leafFrom.IsZero() {
		leafFrom = NotBefore
	}
	if leafTo.IsZero() {
		leafTo = NotAfter
	}
	root, err := issue(&x509.Certificate{Subject: pkix.Name{CommonName: "Tandem Test Root CA", Organization: []string{"Tandem Test"}},
		IsCA: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign}, NotBefore, NotAfter, part{})
	if err != nil {
		return chain{}, err
	}
	inter, err := issue(&x509.Certificate{Subject: pkix.Name{CommonName: "Tandem Test StoreKit Intermediate", Organization: []string{"Tandem Test"}},
		IsCA: true, MaxPathLenZero: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		ExtraExtensions: marker(oidIntermediate, !p.NoIntermediateOID)}, NotBefore, NotAfter, root)
	if err != nil {
		return chain{}, err
	}
	issuer := inter
	if p.LeafUnderRoot {
		issuer = root
	}
	leaf, err := issue(&x509.Certificate{Subject: pkix.Name{CommonName: "Tandem Test StoreKit Signing", Organization: []string{"Tandem Test"}},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtraExtensions: marker(oidLeaf, !p.NoLeafOID)}, leafFrom, leafTo, issuer)
	if err != nil {
		return chain{}, err
	}
	return chain{root: root, intermediate: inter, leaf: leaf}, nil
}

func marker(oid asn1.ObjectIdentifier, on bool) []pkix.Extension {
	if !on {
		return nil
	}
	return []pkix.Extension{{Id: oid, Value: asn1Null}}
}

// issue signs tmpl with a new P-256 key by parent (self-signed when parent
// is empty).
func issue(tmpl *x509.Certificate, from, to time.Time, parent part) (part, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return part{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return part{}, err
	}
	tmpl.SerialNumber, tmpl.NotBefore, tmpl.NotAfter, tmpl.BasicConstraintsValid = serial, from, to, true
	if parent.cert == nil {
		parent = part{cert: tmpl, key: key}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent.cert, &key.PublicKey, parent.key)
	if err != nil {
		return part{}, err
	}
	cert, err := x509.ParseCertificate(der)
	return part{cert: cert, key: key}, err
}

// files is the chain as the PEM files committed under testdata.
func (c chain) files() (map[string][]byte, error) {
	out := map[string][]byte{}
	for name, p := range map[string]part{"root": c.root, "intermediate": c.intermediate, "leaf": c.leaf} {
		key, err := x509.MarshalPKCS8PrivateKey(p.key)
		if err != nil {
			return nil, err
		}
		out[name+".pem"] = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.cert.Raw})
		out[name+".key.pem"] = pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: key})
	}
	return out, nil
}

// load reads a chain back from its files.
func load(files map[string][]byte) (chain, error) {
	var c chain
	for name, p := range map[string]*part{"root": &c.root, "intermediate": &c.intermediate, "leaf": &c.leaf} {
		var err error
		if p.cert, err = parseCert(files[name+".pem"]); err != nil {
			return chain{}, fmt.Errorf("%s.pem: %w", name, err)
		}
		if p.key, err = parseKey(files[name+".key.pem"]); err != nil {
			return chain{}, fmt.Errorf("%s.key.pem: %w", name, err)
		}
	}
	return c, nil
}

func parseCert(data []byte) (*x509.Certificate, error) {
	b, _ := pem.Decode(data)
	if b == nil || b.Type != "CERTIFICATE" {
		return nil, fmt.Errorf("no CERTIFICATE block")
	}
	return x509.ParseCertificate(b.Bytes)
}

func parseKey(data []byte) (*ecdsa.PrivateKey, error) {
	b, _ := pem.Decode(data)
	if b == nil || b.Type != "PRIVATE KEY" {
		return nil, fmt.Errorf("no PRIVATE KEY block")
	}
	k, err := x509.ParsePKCS8PrivateKey(b.Bytes)
	if err != nil {
		return nil, err
	}
	ec, ok := k.(*ecdsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("not an ECDSA key")
	}
	return ec, nil
}
