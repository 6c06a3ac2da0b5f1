package httpapi_test

import (
	"regexp"
	"testing"
)

var (
	pairingCodeShape    = regexp.MustCompile(`^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{6}$`)
	connectionCodeShape = regexp.MustCompile(`^[A-Za-z0-9_-]{8,64}$`)
)

// FuzzPartnerBodies: any body of POST .../pairing (generate-code,
// submit-code) and of the partner connection routes (create, link, unlink)
// sent by an unpaired user gets a 200 or a 4xx with the error body; that
// user's own pairing code is six characters of the documented alphabet,
// a connection code created is 8-64 of [A-Za-z0-9_-], and no body pairs the
// user with anyone (no code of a free user exists to guess).
func FuzzPartnerBodies(f *testing.F) {
	f.Add([]byte(`{"action":"generate-code"}`), uint8(0))
	f.Add([]byte(`{"action":"submit-code","targetCode":" abc234 "}`), uint8(0))
	f.Add([]byte(`{"userId":"ID","connectionCode":"OurCode1"}`), uint8(1))
	f.Add([]byte(`{"userId":"ID","connectionCode":"abcd"}`), uint8(2))
	f.Add([]byte(`{"userId":"ID"}`), uint8(3))
	f.Fuzz(func(t *testing.T, body []byte, route uint8) {
		a := apiForFuzz(t)
		a.mu.Lock()
		defer a.mu.Unlock()
		u := a.admin
		body = []byte(regexp.MustCompile(`"ID"`).ReplaceAllLiteralString(string(body), `"`+u.ID+`"`))
		hdr := map[string]string{"X-API-Key": fuzzKey}
		switch route % 4 {
		case 0:
			a.send(t, "POST", "/api/users/user/"+u.ID+"/pairing", u.Token, body)
		case 1:
			a.sendWith(t, "POST", "/api/partnerConnections/create", u.Token, body, hdr)
		case 2:
			a.sendWith(t, "POST", "/api/partnerConnections/link", u.Token, body, hdr)
		case 3:
			a.sendWith(t, "POST", "/api/partnerConnections/unlink", u.Token, body, hdr)
		}
		s := decodeAs[struct {
			State  string  `json:"state"`
			MyCode *string `json:"myCode"`
		}](t, a.must(t, "GET", "/api/users/user/"+u.ID+"/pairing", u.Token, nil))
		if s.State == "connected" {
			t.Fatalf("a fuzzed body paired %s: %s", u.ID, body)
		}
		if s.MyCode != nil && !pairingCodeShape.MatchString(*s.MyCode) {
			t.Fatalf("pairing code %q", *s.MyCode)
		}
		st, b := a.sendWith(t, "GET", "/api/partnerConnections/get/"+u.ID, u.Token, nil, hdr)
		if st == 200 {
			c := decodeAs[struct {
				Data struct{ ConnectionCode *string } `json:"data"`
			}](t, b)
			if c.Data.ConnectionCode != nil && !connectionCodeShape.MatchString(*c.Data.ConnectionCode) {
				t.Fatalf("connection code %q", *c.Data.ConnectionCode)
			}
		}
	})
}
