package tests

import (
	"fmt"
	"testing"
)

// An attacker's review of accounts and pairing (issue 9): holes found after
// the first round of defences, each proven here on every profile.

// TestSecurityReviewForwardedForIsReadFromTheRight: a proxy appends the
// address it saw to whatever X-Forwarded-For the client sent, so only the
// entries added by trusted proxies are believed; an address the client wrote
// in front does not give it a fresh login budget.
func TestSecurityReviewForwardedForIsReadFromTheRight(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		id, _ := h.signUp("owner@x.io")
		const client = "203.0.113.7"
		for i := range 10 {
			spoofed := fromIP(fmt.Sprintf("198.51.100.%d, %s", i+1, client))
			expect(t, h.loginAs("owner@x.io", "wrong-pass", spoofed), 401, errBody("invalid_credentials", "invalid e-mail or password"))
		}
		for _, xff := range []string{"198.51.100.99, " + client, client, "garbage, " + client, client + ", 127.0.0.1"} {
			expect(t, h.loginAs("owner@x.io", pw, fromIP(xff)), 429, errBody("rate_limited", "too many requests, try again later"))
		}
		// the owner from another address is not locked out
		expect(t, h.loginAs("owner@x.io", pw, fromIP("203.0.113.8")), 200, `{"success":true,"userId":"`+id+`","token":"<string>","message":"<string>"}`)
	}, withTrustedProxy(), withEnv("TANDEM_RATE_LIMIT_IP", "1000"))
}

// TestSecurityReviewForwardedForIsIgnoredWithoutATrustedProxy: with no proxy
// trusted, X-Forwarded-For is the client's own text and names nobody.
func TestSecurityReviewForwardedForIsIgnoredWithoutATrustedProxy(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		h.signUp("owner@x.io")
		for i := range 10 {
			expect(t, h.loginAs("owner@x.io", "wrong-pass", fromIP(fmt.Sprintf("198.51.100.%d", i+1))), 401, "")
		}
		expect(t, h.loginAs("owner@x.io", pw, fromIP("203.0.113.50")), 429, errBody("rate_limited", "too many requests, try again later"))
	}, withEnv("TANDEM_RATE_LIMIT_IP", "1000"))
}

// TestSecurityReviewIPv6ClientsAreCountedPerNetwork: one IPv6 host holds a
// whole /64; walking its addresses does not give a fresh login budget.
func TestSecurityReviewIPv6ClientsAreCountedPerNetwork(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		id, _ := h.signUp("owner@x.io")
		for i := range 10 {
			expect(t, h.loginAs("owner@x.io", "wrong-pass", fromIP(fmt.Sprintf("2001:db8:1:2::%x", i+1))), 401, "")
		}
		expect(t, h.loginAs("owner@x.io", pw, fromIP("2001:db8:1:2:ffff::1")), 429, errBody("rate_limited", "too many requests, try again later"))
		expect(t, h.loginAs("owner@x.io", pw, fromIP("2001:db8:1:3::1")), 200, `{"success":true,"userId":"`+id+`","token":"<string>","message":"<string>"}`)
	}, withTrustedProxy(), withEnv("TANDEM_RATE_LIMIT_IP", "1000"))
}

// TestSecurityReviewEmailVariantsAreNotTheAccount: an address that a
// database collation holds equal to the owner's (an accent more) is another
// address: it neither logs into the owner's account, with fresh login
// counters, nor asks for the owner's reset codes past their hourly limit.
func TestSecurityReviewEmailVariantsAreNotTheAccount(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		id, _ := h.signUp("victim@x.io")
		mails := len(h.Mail.All())
		for _, variant := range []string{"víctim@x.io", "vïctim@x.io", "VÍCTIM@x.io"} {
			expect(t, h.loginAs(variant, pw, nil), 401, errBody("invalid_credentials", "invalid e-mail or password"))
			expect(t, h.post("/api/auth/reset", "", map[string]any{"email": variant}), 404, errBody("user_not_found", "user not found"))
		}
		if n := len(h.Mail.All()); n != mails {
			t.Fatalf("%d mails sent to the owner through look-alike addresses", n-mails)
		}
		expect(t, h.loginAs("victim@x.io", pw, nil), 200, `{"success":true,"userId":"`+id+`","token":"<string>","message":"<string>"}`)
	}, withEnv("TANDEM_RATE_LIMIT_IP", "1000"))
}

// TestSecurityLookAlikeEmailsAreAccountsOfTheirOwn: an address that differs
// by an accent is another mailbox, so it may hold another account (MySQL's
// default collation held the two equal and answered 409).
func TestSecurityLookAlikeEmailsAreAccountsOfTheirOwn(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		victim, _ := h.signUp("victim@x.io")
		other, token := h.signUp("víctim@x.io")
		if other == victim {
			t.Fatal("the look-alike got the victim's account")
		}
		expect(t, h.get("/api/users/user/"+other, token), 200, `{"success":true,"userId":"`+other+`","email":"víctim@x.io",
			"displayName":"","timezone":"","locale":"en","createdAt":"<number>","signInMethods":["password"]}`)
		expect(t, h.post("/api/auth/signup/email", "", map[string]any{"email": "VICTIM@x.io", "password": pw}), 409,
			errBody("email_already_registered", "this e-mail is already registered"))
		expect(t, h.loginAs("victim@x.io", pw, nil), 200, `{"success":true,"userId":"`+victim+`","token":"<string>","message":"<string>"}`)
	}, withEnv("TANDEM_RATE_LIMIT_IP", "1000"))
}

// TestSecurityReviewCreateIsNoFreeOracle: creating a connection code answers
// whether it is taken (409) or free (200); both answers are a probe, so every
// create counts against the pairing budget, else a guesser would walk free
// codes forever and pay only for the hits it wants.
func TestSecurityReviewCreateIsNoFreeOracle(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		owner, stranger := h.newUser("owner@x.io"), h.newUser("stranger@x.io")
		expect(t, h.connCreate(owner, "Owner-Code-2025"), 200, "")
		create := func(code string) req {
			return keyedFrom(stranger, "/api/partnerConnections/create", map[string]any{"userId": stranger.ID, "connectionCode": code}, strangerIP)
		}
		for i := range 10 {
			expect(t, h.do(create(fmt.Sprintf("probe-%04d", i))), 200, "")
		}
		wantRateLimited(t, h.do(create("probe-0010")))
		wantRateLimited(t, h.do(create("owner-code-2025")))
		expect(t, h.connection(stranger), 200, connectionBody(stranger, "", "probe-0009"))
		expect(t, h.connection(owner), 200, connectionBody(owner, "", "Owner-Code-2025"))
	}, withTrustedProxy())
}

// TestSecurityReviewConcurrentCodeGuessesStopAtFiveTries: a crowd of wrong
// codes sent at once gets at most five answers; the code is then dead, the
// right one included, and the password unchanged.
func TestSecurityReviewConcurrentCodeGuessesStopAtFiveTries(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		id, _ := h.signUp("owner@x.io")
		expect(t, h.post("/api/auth/reset", "", map[string]any{"email": "owner@x.io"}), 200, "")
		code := h.Mail.Code("owner@x.io")
		burst := make([]req, 40)
		for i := range burst {
			guess := fmt.Sprintf("%06d", i)
			if guess == code {
				guess = "999999"
			}
			burst[i] = req{Method: "POST", Path: "/api/auth/reset", Body: map[string]any{"userId": id, "code": guess}}
		}
		answered := 0
		for i, r := range h.atOnce(burst...) {
			switch r.Status {
			case 400:
				expect(t, r, 400, errBody("invalid_code", "invalid or expired code"))
				answered++
			case 429:
				expect(t, r, 429, errBody("too_many_attempts", "too many wrong codes; request a new one"))
			default:
				t.Fatalf("guess %d: %d %s", i, r.Status, r.Body)
			}
		}
		if answered > 5 {
			t.Fatalf("%d of 40 concurrent guesses were compared, limit 5", answered)
		}
		expect(t, h.post("/api/auth/reset", "", map[string]any{"userId": id, "code": code}), 429, "")
		expect(t, h.loginAs("owner@x.io", pw, nil), 200, "")
	}, withEnv("TANDEM_RATE_LIMIT_IP", "1000"))
}

// TestSecurityReviewTheRightCodeIsNotAWrongTry: four wrong tries, then the
// right code: the owner still completes the reset with the proof.
func TestSecurityReviewTheRightCodeIsNotAWrongTry(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		id, _ := h.signUp("owner@x.io")
		expect(t, h.post("/api/auth/reset", "", map[string]any{"email": "owner@x.io"}), 200, "")
		code := h.Mail.Code("owner@x.io")
		wrong := "000000"
		if code == wrong {
			wrong = "111111"
		}
		for range 4 {
			expect(t, h.post("/api/auth/reset", "", map[string]any{"userId": id, "code": wrong}), 400, "")
		}
		v := h.post("/api/auth/reset", "", map[string]any{"userId": id, "code": code})
		expect(t, v, 200, "")
		r := h.post("/api/auth/reset", "", map[string]any{"userId": id, "newPassword": "owner-new-pass", "resetToken": v.JSON(t)["resetToken"]})
		expect(t, r, 200, `{"success":true,"code":"password_updated","userId":"`+id+`","token":"<string>","message":"<string>"}`)
		expect(t, h.loginAs("owner@x.io", "owner-new-pass", nil), 200, "")
	}, withEnv("TANDEM_RATE_LIMIT_IP", "1000"))
}
