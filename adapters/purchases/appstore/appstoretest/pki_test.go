package appstoretest

import (
	"crypto/x509"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "regenerate the committed test chain under testdata")

// TestCommittedPKI checks the committed chain is shaped like Apple's; with
// -update it writes a new one and checks that instead (the embedded copy is
// the one this binary was built with).
func TestCommittedPKI(t *testing.T) {
	c, err := committed()
	if *update {
		c, err = regenerate()
	}
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]part{"root": c.root, "intermediate": c.intermediate, "leaf": c.leaf} {
		if !p.cert.NotBefore.Equal(NotBefore) || !p.cert.NotAfter.Equal(NotAfter) {
			t.Errorf("%s is valid %v to %v, want %v to %v", name, p.cert.NotBefore, p.cert.NotAfter, NotBefore, NotAfter)
		}
		if !p.key.PublicKey.Equal(p.cert.PublicKey) {
			t.Errorf("%s.key.pem is not the key of %s.pem", name, name)
		}
	}
	if !hasOID(c.leaf.cert, oidLeaf.String()) || !hasOID(c.intermediate.cert, oidIntermediate.String()) {
		t.Error("the leaf or the intermediate lacks Apple's marker extension")
	}
	roots, inter := x509.NewCertPool(), x509.NewCertPool()
	roots.AddCert(c.root.cert)
	inter.AddCert(c.intermediate.cert)
	_, err = c.leaf.cert.Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter,
		CurrentTime: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
	if err != nil {
		t.Errorf("the committed chain does not verify: %v", err)
	}
}

func regenerate() (chain, error) {
	c, err := generate(PKI{})
	if err != nil {
		return chain{}, err
	}
	files, err := c.files()
	if err != nil {
		return chain{}, err
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join("testdata", name), data, 0o644); err != nil {
			return chain{}, err
		}
	}
	return load(files)
}

func hasOID(c *x509.Certificate, oid string) bool {
	for _, e := range c.Extensions {
		if e.Id.String() == oid {
			return true
		}
	}
	return false
}
