package appstore_test

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"strings"
	"testing"

	"tandem/adapters/purchases/appstore"
)

// TestAppleRoot pins the embedded root to the fingerprint Apple publishes
// for Apple Root CA - G3.
func TestAppleRoot(t *testing.T) {
	t.Parallel()
	block, rest := pem.Decode(appstore.AppleRootPEM)
	if block == nil || len(strings.TrimSpace(string(rest))) != 0 {
		t.Fatal("the embedded root is not exactly one PEM block")
	}
	sum := sha256.Sum256(block.Bytes)
	const want = "63343ABFB89A6A03EBB57E9B3F5FA7BE7C4F5C756F3017B3A8C488C3653E9179"
	if got := strings.ToUpper(hex.EncodeToString(sum[:])); got != want {
		t.Fatalf("SHA-256 %s, want %s", got, want)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if cert.Subject.CommonName != "Apple Root CA - G3" {
		t.Errorf("subject %q", cert.Subject.CommonName)
	}
}
