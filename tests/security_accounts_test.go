package tests

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Attacks on accounts (issue 9): reset takeover, sign-up pre-hijack, raced
// login limits, lock-out of the owner, and session control.

func (h *harness) loginAs(email, password string, headers map[string]string) response {
	h.t.Helper()
	return h.do(req{Method: "POST", Path: "/api/auth/login/email", Headers: headers,
		Body: map[string]any{"email": email, "password": password}})
}

func fromIP(ip string) map[string]string { return map[string]string{"X-Forwarded-For": ip} }

func TestSecurityResetNeedsProofOfTheMailbox(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		id, _ := h.signUp("owner@x.io")
		// The reset request hands out the userId to anyone who knows the e-mail.
		r := h.post("/api/auth/reset", "", map[string]any{"email": "owner@x.io"})
		expect(t, r, 200, `{"success":true,"code":"reset_code_sent","userId":"`+id+`","message":"<string>"}`)
		code := h.Mail.Code("owner@x.io")
		// The owner proves the code; the attacker, who saw only the userId, races
		// to set a password without proof, with a guessed code or a forged token.
		v := h.post("/api/auth/reset", "", map[string]any{"userId": id, "code": code})
		expect(t, v, 200, `{"success":true,"code":"code_valid","valid":true,"resetToken":"<string>","message":"<string>"}`)
		resetToken := v.JSON(t)["resetToken"].(string)
		attacks := []map[string]any{
			{"userId": id, "newPassword": "attacker-pass"},
			{"userId": id, "newPassword": "attacker-pass", "code": "123456"},
			{"userId": id, "newPassword": "attacker-pass", "resetToken": "forged"},
			{"userId": id, "newPassword": "attacker-pass", "resetToken": ""},
		}
		for _, a := range attacks {
			r := h.post("/api/auth/reset", "", a)
			expect(t, r, 400, `{"success":false,"code":"invalid_code","error":"<string>","message":"<string>"}`)
			if r.JSON(t)["token"] != nil {
				t.Fatal("a token handed out without proof")
			}
		}
		expect(t, h.loginAs("owner@x.io", "attacker-pass", nil), 401, "")
		expect(t, h.loginAs("owner@x.io", pw, nil), 200, "")

		// The owner's proof works once; the spent proof and code work never again.
		r = h.post("/api/auth/reset", "", map[string]any{"userId": id, "newPassword": "owner-new-pass", "resetToken": resetToken})
		expect(t, r, 200, `{"success":true,"code":"password_updated","userId":"`+id+`","token":"<string>","message":"<string>"}`)
		expect(t, h.post("/api/auth/reset", "", map[string]any{"userId": id, "newPassword": "attacker-pass", "resetToken": resetToken}), 400, "")
		expect(t, h.post("/api/auth/reset", "", map[string]any{"userId": id, "newPassword": "attacker-pass", "code": code}), 400, "")
		expect(t, h.loginAs("owner@x.io", "owner-new-pass", nil), 200, "")
		expect(t, h.loginAs("owner@x.io", "attacker-pass", nil), 401, "")
	})
}

func TestSecurityResetWithTheVerifiedCodeAgain(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		id, _ := h.signUp("owner@x.io")
		expect(t, h.post("/api/auth/reset", "", map[string]any{"email": "owner@x.io"}), 200, "")
		code := h.Mail.Code("owner@x.io")
		// An unproven code is not proof yet.
		expect(t, h.post("/api/auth/reset", "", map[string]any{"userId": id, "code": code, "newPassword": "new-password"}), 400,
			errBody("invalid_code", "verify a reset code first"))
		expect(t, h.post("/api/auth/reset", "", map[string]any{"userId": id, "code": code}), 200, "")
		r := h.post("/api/auth/reset", "", map[string]any{"userId": id, "code": code, "newPassword": "new-password"})
		expect(t, r, 200, `{"success":true,"code":"password_updated","userId":"`+id+`","token":"<string>","message":"<string>"}`)
		expect(t, h.get("/api/users/user/"+id, r.JSON(t)["token"].(string)), 200, "")
		expect(t, h.loginAs("owner@x.io", "new-password", nil), 200, "")
	})
}

// A stranger who signs up first with someone's address gets nothing: the
// sign-ups disagree on the password, so none is kept; the owner verifies,
// is signed in with passwordRequired, and sets a password. An
// administrator's address (TANDEM_ADMIN_EMAILS) never keeps a password
// chosen before verification, whoever chose it.
func TestSecurityDisputedSignUpKeepsNoPassword(t *testing.T) {
	parallel(t)
	for _, email := range []string{"owner@x.io", "boss@x.io"} {
		t.Run(email, func(t *testing.T) {
			eachProfile(t, func(t *testing.T, h *harness) {
				r := h.post("/api/auth/signup/email", "", map[string]any{"email": email, "password": "attacker-pass"})
				expect(t, r, 200, `{"success":true,"code":"verification_required","userId":"<string>","message":"<string>"}`)
				id := r.JSON(t)["userId"].(string)
				first := h.Mail.Code(email)
				again := h.post("/api/auth/signup/email", "", map[string]any{"email": strings.ToUpper(email), "password": pw})
				expect(t, again, 200, `{"success":true,"code":"verification_required","userId":"`+id+`","message":"<string>"}`)
				fresh := h.Mail.Code(email)
				if fresh != first { // the new sign-up killed the earlier code
					expect(t, h.post("/api/auth/signup/email", "", map[string]any{"userId": id, "verificationCode": first}),
						400, errBody("invalid_code", "invalid or expired code"))
				}
				v := h.post("/api/auth/signup/email", "", map[string]any{"userId": id, "verificationCode": fresh})
				expect(t, v, 200, `{"success":true,"code":"verification_success","userId":"`+id+`","token":"<string>",
					"passwordRequired":true,"message":"<string>"}`)
				token := v.JSON(t)["token"].(string)
				// The console tells a configured administrator with no password
				// how to set one (the attacker learns nothing they did not
				// know: their password was dropped); either way no session.
				consoleSays := "invalid e-mail or password"
				if email == "boss@x.io" {
					consoleSays = "this administrator has no password yet"
				}
				for _, p := range []string{"attacker-pass", pw} {
					expect(t, h.loginAs(email, p, nil), 401, errBody("invalid_credentials", "invalid e-mail or password"))
					c := h.console(t)
					expectPage(t, c.signIn(email, p), 401, consoleSays)
				}
				expect(t, h.get("/api/users/user/"+id, token), 200, `{"success":true,"userId":"`+id+`","email":"`+email+`",
					"displayName":"","timezone":"","locale":"en","createdAt":"<number>","passwordRequired":true,"signInMethods":[]}`)
				set := h.post("/api/users/user/"+id+"/password", token, map[string]any{"newPassword": "owner-chosen-after"})
				expect(t, set, 200, `{"success":true,"code":"password_updated","userId":"`+id+`","token":"<string>","message":"<string>"}`)
				expect(t, h.get("/api/users/user/"+id, token), 401, "") // every earlier session ends
				expect(t, h.get("/api/users/user/"+id, set.JSON(t)["token"].(string)), 200, `{"success":true,"userId":"`+id+`",
					"email":"`+email+`","displayName":"","timezone":"","locale":"en","createdAt":"<number>","signInMethods":["password"]}`)
				expect(t, h.loginAs(email, "owner-chosen-after", nil), 200, "")
				expect(t, h.loginAs(email, "attacker-pass", nil), 401, "")
			}, withAdmins("boss@x.io"))
		})
	}
}

// A repeated sign-up with the same password keeps it.
func TestSecuritySignUpAgainWithTheSamePasswordKeepsIt(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		id := h.post("/api/auth/signup/email", "", map[string]any{"email": "owner@x.io", "password": pw}).JSON(t)["userId"].(string)
		expect(t, h.post("/api/auth/signup/email", "", map[string]any{"email": "owner@x.io", "password": pw}), 200, "")
		v := h.post("/api/auth/signup/email", "", map[string]any{"userId": id, "verificationCode": h.Mail.Code("owner@x.io")})
		expect(t, v, 200, `{"success":true,"code":"verification_success","userId":"`+id+`","token":"<string>","message":"<string>"}`)
		expect(t, h.loginAs("owner@x.io", pw, nil), 200, "")
	})
}

// The signed-in password change: a stolen token alone cannot take the
// account (the current password is required and its guesses are counted),
// and nobody changes another user's password.
func TestSecurityPasswordChange(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
		path := "/api/users/user/" + ann.ID + "/password"
		expect(t, h.post(path, ann.Token, map[string]any{"newPassword": "stolen-choice"}), 400,
			errBody("invalid_request", "currentPassword is required"))
		expect(t, h.post(path, ann.Token, map[string]any{"currentPassword": "wrong-guess", "newPassword": "stolen-choice"}), 403,
			errBody("invalid_credentials", "the current password is wrong"))
		expect(t, h.post(path, bob.Token, map[string]any{"currentPassword": pw, "newPassword": "stolen-choice"}), 403, "")
		expect(t, h.post(path, "", map[string]any{"currentPassword": pw, "newPassword": "stolen-choice"}), 401, "")
		expect(t, h.post(path, ann.Token, map[string]any{"currentPassword": pw}), 400, errBody("invalid_request", "newPassword is required"))
		expect(t, h.post(path, ann.Token, map[string]any{"currentPassword": pw, "newPassword": "short"}), 400, "")
		expect(t, h.loginAs("ann@x.io", pw, nil), 200, "") // nothing changed
		expect(t, h.get("/api/users/user/"+ann.ID, ann.Token), 200, "")
		r := h.post(path, ann.Token, map[string]any{"currentPassword": pw, "newPassword": "ann-new-password"})
		expect(t, r, 200, `{"success":true,"code":"password_updated","userId":"`+ann.ID+`","token":"<string>","message":"<string>"}`)
		expect(t, h.get("/api/users/user/"+ann.ID, ann.Token), 401, "")
		expect(t, h.loginAs("ann@x.io", "ann-new-password", nil), 200, "")
		expect(t, h.loginAs("ann@x.io", pw, nil), 401, "")
	}, withEnv("TANDEM_RATE_LIMIT_IP", "1000"))
}

// A stranger's wrong codes, and a stranger's code requests, are counted per
// client IP: the owner from another address still gets a code and can use
// it.
func TestSecurityStrangersCannotSpendTheOwnersCodes(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		id, _ := h.signUp("owner@x.io")
		stranger, owner := fromIP("203.0.113.9"), fromIP("198.51.100.20")
		for range 5 {
			expect(t, h.do(req{Method: "POST", Path: "/api/auth/reset", Headers: stranger, Body: map[string]any{"email": "owner@x.io"}}), 200, "")
		}
		expect(t, h.do(req{Method: "POST", Path: "/api/auth/reset", Headers: stranger, Body: map[string]any{"email": "owner@x.io"}}),
			429, errBody("rate_limited", "too many requests, try again later"))
		expect(t, h.do(req{Method: "POST", Path: "/api/auth/reset", Headers: owner, Body: map[string]any{"email": "owner@x.io"}}), 200, "")
		code := h.Mail.Code("owner@x.io")
		wrong := "000000"
		if code == wrong {
			wrong = "111111"
		}
		for range 5 {
			expect(t, h.do(req{Method: "POST", Path: "/api/auth/reset", Headers: stranger, Body: map[string]any{"userId": id, "code": wrong}}),
				400, errBody("invalid_code", "invalid or expired code"))
		}
		expect(t, h.do(req{Method: "POST", Path: "/api/auth/reset", Headers: stranger, Body: map[string]any{"userId": id, "code": code}}),
			429, errBody("too_many_attempts", "too many wrong codes; request a new one"))
		v := h.do(req{Method: "POST", Path: "/api/auth/reset", Headers: owner, Body: map[string]any{"userId": id, "code": code}})
		expect(t, v, 200, "")
		expect(t, h.do(req{Method: "POST", Path: "/api/auth/reset", Headers: owner,
			Body: map[string]any{"userId": id, "newPassword": "owner-new-pass", "resetToken": v.JSON(t)["resetToken"]}}), 200, "")
		expect(t, h.loginAs("owner@x.io", "owner-new-pass", nil), 200, "")
	}, withEnv("TANDEM_TRUSTED_PROXIES", "127.0.0.1"), withEnv("TANDEM_RATE_LIMIT_IP", "1000"))
}

// Addresses are compared after NFKC and case folding; invisible format
// characters are refused.
func TestSecurityLookAlikeSpellingsAreOneAddress(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		victim, _ := h.signUp("victim@example.com")
		expect(t, h.post("/api/auth/signup/email", "", map[string]any{"email": "ｖictim@example.com", "password": "attacker-pass"}), 409,
			errBody("email_already_registered", "this e-mail is already registered"))
		expect(t, h.post("/api/auth/signup/email", "", map[string]any{"email": "victim\u200b@example.com", "password": "attacker-pass"}), 400,
			errBody("invalid_request", "email must not contain invisible characters"))
		expect(t, h.loginAs("ＶＩＣＴＩＭ@example.com", pw, nil), 200, `{"success":true,"userId":"`+victim+`","token":"<string>","message":"<string>"}`)
		if n := len(h.Mail.All()); n != 1 {
			t.Fatalf("%d mails: a look-alike got a code", n)
		}
	}, withEnv("TANDEM_RATE_LIMIT_IP", "1000"))
}

func TestSecurityResetOfANeverVerifiedAccountVerifiesIt(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		r := h.post("/api/auth/signup/email", "", map[string]any{"email": "owner@x.io", "password": pw})
		id := r.JSON(t)["userId"].(string)
		expect(t, h.post("/api/auth/reset", "", map[string]any{"email": "owner@x.io"}), 200, "")
		code := h.Mail.Code("owner@x.io")
		expect(t, h.post("/api/auth/reset", "", map[string]any{"userId": id, "code": code}), 200, "")
		expect(t, h.post("/api/auth/reset", "", map[string]any{"userId": id, "code": code, "newPassword": "new-password"}), 200, "")
		expect(t, h.loginAs("owner@x.io", "new-password", nil), 200, `{"success":true,"userId":"`+id+`","token":"<string>","message":"<string>"}`)
	})
}

func TestSecurityConcurrentWrongLoginsCannotPassTheLimit(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		h.signUp("owner@x.io")
		const attempts = 40
		statuses := make([]int, attempts)
		var wg sync.WaitGroup
		for i := range attempts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = h.loginAs("owner@x.io", "wrong-pass-"+strconv.Itoa(i), nil).Status
			}()
		}
		wg.Wait()
		count := map[int]int{}
		for _, s := range statuses {
			count[s]++
		}
		// 503 busy: a reserved attempt that found no hashing slot in time
		// (TANDEM_HASH_SLOTS); it still counts against the limit.
		if count[401] > 10 || count[401]+count[429]+count[503] != attempts {
			t.Fatalf("answers %v: at most 10 may be checked against the password", count)
		}
		r := h.loginAs("owner@x.io", pw, nil)
		expect(t, r, 429, errBody("rate_limited", "too many requests, try again later"))
		if r.Header.Get("Retry-After") == "" {
			t.Fatal("no Retry-After")
		}
	}, withEnv("TANDEM_RATE_LIMIT_IP", "1000"))
}

func TestSecurityALockedIPDoesNotLockTheOwnerOut(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		id, _ := h.signUp("owner@x.io")
		attacker, owner := fromIP("203.0.113.9"), fromIP("198.51.100.20")
		for range 10 {
			expect(t, h.loginAs("owner@x.io", "wrong-pass", attacker), 401, "")
		}
		expect(t, h.loginAs("owner@x.io", pw, attacker), 429, errBody("rate_limited", "too many requests, try again later"))
		expect(t, h.loginAs("owner@x.io", pw, owner), 200, `{"success":true,"userId":"`+id+`","token":"<string>","message":"<string>"}`)
		// The owner's successes do not count: many logins from one place stay open.
		for range 12 {
			expect(t, h.loginAs("owner@x.io", pw, owner), 200, "")
		}
	}, withEnv("TANDEM_TRUSTED_PROXIES", "127.0.0.1"), withEnv("TANDEM_RATE_LIMIT_IP", "1000"))
}

func TestSecuritySessions(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		id, first := h.signUp("owner@x.io")
		other := h.newUser("other@x.io")
		h.Clock.Advance(time.Second)
		r := h.do(req{Method: "POST", Path: "/api/auth/login/email", Headers: map[string]string{"User-Agent": "TandemApp/2.1 (iPhone)"},
			Body: map[string]any{"email": "owner@x.io", "password": pw}})
		expect(t, r, 200, "")
		second := r.JSON(t)["token"].(string)

		list := h.get("/api/users/user/"+id+"/sessions", second)
		expect(t, list, 200, `{"success":true,"sessions":[
			{"id":"<string>","createdAt":"<number>","lastUsedAt":"<number>","userAgent":"TandemApp/2.1 (iPhone)","current":true},
			{"id":"<string>","createdAt":"<number>","lastUsedAt":null,"userAgent":"<string>","current":false}]}`)
		for _, tok := range []string{first, second} {
			if bytes.Contains(list.Body, []byte(tok)) {
				t.Fatal("a session list must never show a token")
			}
		}
		sessions := list.JSON(t)["sessions"].([]any)
		firstID := sessions[1].(map[string]any)["id"].(string)

		// A stranger can neither list nor delete the owner's sessions.
		expect(t, h.get("/api/users/user/"+id+"/sessions", other.Token), 403, "")
		expect(t, h.do(req{Method: "DELETE", Path: "/api/users/user/" + other.ID + "/sessions/" + firstID, Token: other.Token}), 404,
			errBody("not_found", "session not found"))
		expect(t, h.get("/api/users/user/"+id, first), 200, "")

		expect(t, h.do(req{Method: "DELETE", Path: "/api/users/user/" + id + "/sessions/" + firstID, Token: second}), 200,
			`{"success":true,"deletedId":"`+firstID+`"}`)
		expect(t, h.get("/api/users/user/"+id, first), 401, "")
		expect(t, h.get("/api/users/user/"+id, second), 200, "")

		third := h.loginAs("owner@x.io", pw, nil).JSON(t)["token"].(string)
		expect(t, h.post("/api/auth/logout", second, map[string]any{"all": true}), 200, `{"success":true,"message":"logged out everywhere"}`)
		for _, tok := range []string{second, third} {
			expect(t, h.get("/api/users/user/"+id, tok), 401, "")
		}
		expect(t, h.get("/api/users/user/"+other.ID, other.Token), 200, "") // nobody else is logged out
	}, withEnv("TANDEM_RATE_LIMIT_IP", "1000"))
}

func TestSecurityAtMostFiftyLiveSessions(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		id, oldest := h.signUp("owner@x.io")
		var last string
		for range 50 {
			h.Clock.Advance(time.Second) // distinct creation times: the oldest is well defined
			last = h.loginAs("owner@x.io", pw, nil).JSON(t)["token"].(string)
		}
		expect(t, h.get("/api/users/user/"+id, oldest), 401, "")
		list := h.get("/api/users/user/"+id+"/sessions", last)
		expect(t, list, 200, "")
		if n := len(list.JSON(t)["sessions"].([]any)); n != 50 {
			t.Fatalf("%d live sessions, want 50", n)
		}
	}, withEnv("TANDEM_RATE_LIMIT_IP", "1000"))
}
