package httpapi_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"tandem/core"
	"tandem/modules/premium"
)

// FuzzPremiumBody: any body of POST .../premiums (create, subscribe,
// update, cancel, deactivate) gets a 200 or a 4xx with the error body; a
// stored subscription holds a plan of 1-64 characters without control or
// bidi characters, a billingId of at most 255 bytes without them either, a platform among ios,
// android, web or none, a start before its end, both within years 1970 to
// 9999, and meta a compact JSON object of at most 4096 bytes.
func FuzzPremiumBody(f *testing.F) {
	f.Add([]byte(`{"action":"create","plan":"9.99","startDate":1750000000000,"endDate":1781536000000,"platform":"ios","billingId":"b-1","meta":{"store":"apple"}}`))
	f.Add([]byte(`{"action":"update","plan":"19.99","endDate":1790000000000,"meta":null}`))
	f.Add([]byte(`{"action":"cancel"}`))
	f.Add([]byte(`{"action":"subscribe","plan":"x","startDate":"1750000000000","endDate":1.5e12}`))
	f.Add([]byte(`{"action":"update","meta":[1]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		a := apiForFuzz(t)
		a.mu.Lock()
		defer a.mu.Unlock()
		base := "/api/users/user/" + a.admin.ID + "/premiums"
		if st, _ := a.send(t, "POST", base, a.admin.Token, body); st != 200 {
			return
		}
		r := decodeAs[struct {
			Subscription *struct {
				Plan      string          `json:"plan"`
				StartDate int64           `json:"startDate"`
				EndDate   int64           `json:"endDate"`
				BillingID string          `json:"billingId"`
				Platform  string          `json:"platform"`
				Meta      json.RawMessage `json:"meta"`
			} `json:"subscription"`
		}](t, a.must(t, "GET", base+"?action=subscription", a.admin.Token, nil))
		s := r.Subscription
		if s == nil {
			t.Fatal("a subscription was accepted and none is stored")
		}
		textRule(t, "plan", s.Plan, 1, premium.MaxPlan, false, false)
		var compact bytes.Buffer
		switch {
		case len(s.BillingID) > premium.MaxBillingID || core.CheckText("billingId", s.BillingID, false) != nil:
			t.Fatalf("billingId of %d bytes", len(s.BillingID))
		case !slices.Contains([]string{"", "ios", "android", "web"}, s.Platform):
			t.Fatalf("platform %q", s.Platform)
		case s.StartDate < 0 || s.EndDate <= s.StartDate || s.EndDate > 253402300799999:
			t.Fatalf("from %d to %d", s.StartDate, s.EndDate)
		case len(s.Meta) == 0 || s.Meta[0] != '{' || len(s.Meta) > premium.MaxMeta || json.Compact(&compact, s.Meta) != nil || compact.String() != string(s.Meta):
			t.Fatalf("meta %s", s.Meta)
		}
	})
}
