package httpapi_test

import (
	"strings"
	"testing"
	"time"

	"tandem/modules/accounts"
)

// FuzzAccountBodies: any body of PATCH /api/users/user/{id} (profile), of
// POST /api/auth/reset (request, code, update) and of the sign-up
// verification step gets a 200 or a 4xx with the error body; a stored
// profile has a displayName of at most 100 characters (trimmed, no control
// or bidi characters) and an IANA timezone that loads, or none; no reset or
// verification succeeds without the mailed code or its reset token.
func FuzzAccountBodies(f *testing.F) {
	f.Add([]byte(`{"displayName":" Ann ","timezone":"Europe/Paris"}`), uint8(0))
	f.Add([]byte(`{"timezone":""}`), uint8(0))
	f.Add([]byte(`{"timezone":"Mars/Olympus"}`), uint8(0))
	f.Add([]byte(`{"email":"ann@fuzz.io"}`), uint8(1))
	f.Add([]byte(`{"userId":"x","code":"123456"}`), uint8(1))
	f.Add([]byte(`{"userId":"x","newPassword":"new-password-1","resetToken":"abc"}`), uint8(1))
	f.Add([]byte(`{"userId":"x","verificationCode":"123456"}`), uint8(2))
	f.Fuzz(func(t *testing.T, body []byte, route uint8) {
		a := apiForFuzz(t)
		a.mu.Lock()
		defer a.mu.Unlock()
		switch route % 3 {
		case 0:
			path := "/api/users/user/" + a.user.ID
			if st, _ := a.send(t, "PATCH", path, a.user.Token, body); st != 200 {
				return
			}
			p := decodeAs[struct{ DisplayName, Timezone string }](t, a.must(t, "GET", path, a.user.Token, nil))
			textRule(t, "displayName", p.DisplayName, 0, accounts.MaxDisplayName, false, true)
			if p.Timezone != "" {
				if _, err := time.LoadLocation(p.Timezone); err != nil || accounts.ValidateTimezone(p.Timezone) != nil {
					t.Fatalf("timezone %q", p.Timezone)
				}
			}
		case 1:
			st, b := a.send(t, "POST", "/api/auth/reset", "", body)
			if st == 429 {
				a.advance(t, time.Hour) // the next window of the code limit
			}
			if st == 200 && (strings.Contains(string(b), `"password_updated"`) || strings.Contains(string(b), `"code_valid"`)) {
				t.Fatalf("a reset succeeded without the mailed code: %s", b)
			}
		case 2:
			body = []byte(strings.Replace(string(body), `"email"`, `"e"`, -1)) // never a new account: one argon2id each
			if st, b := a.send(t, "POST", "/api/auth/signup/email", "", body); st == 200 {
				t.Fatalf("a verification succeeded without the mailed code: %s", b)
			}
		}
	})
}
