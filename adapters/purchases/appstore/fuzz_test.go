package appstore_test

import (
	"strings"
	"testing"

	"tandem/adapters/purchases/appstore"
	"tandem/core"
)

// FuzzVerifyJWS feeds anything as a signedTransactionInfo, as a
// notification's signedPayload and as a whole notification body: the
// verifier must neither panic nor fail other than as a refusal (a 400,
// never a 500).
func FuzzVerifyJWS(f *testing.F) {
	v, err := appstore.New(appstore.Config{BundleID: bundle, Roots: signer.RootPool()})
	if err != nil {
		f.Fatal(err)
	}
	valid := signer.Transaction(sub())
	f.Add(valid)
	f.Add(payloadOf(signer.Notification(notice("DID_FAIL_TO_RENEW", "GRACE_PERIOD", sub(), renewal()))))
	f.Add(tamper(valid, 1))
	f.Add(strings.Replace(valid, ".", "..", 1))
	f.Add("")
	f.Add("..")
	f.Add("e30.e30.")
	f.Add(`{"signedPayload":"a.b.c"}`)
	f.Fuzz(func(t *testing.T, in string) {
		_, err := v.Verify(t.Context(), proof(in))
		refusedAs(t, err, "invalid_purchase")
		_, err = v.Notification(t.Context(), bodyOf(in))
		refusedAs(t, err, "invalid_notification")
		_, err = v.Notification(t.Context(), []byte(in))
		refusedAs(t, err, "invalid_notification")
	})
}

func refusedAs(t *testing.T, err error, code string) {
	t.Helper()
	if e := core.As(err); err != nil && (e.Kind != core.KindInvalid || e.Code != code) {
		t.Fatalf("%v: want a refusal with code %s", err, code)
	}
}
