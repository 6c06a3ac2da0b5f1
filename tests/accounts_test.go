package tests

import (
	"strings"
	"testing"
	"time"
)

const pw = "correct-horse-1"

// signUp creates a verified account through the API and returns its id and token.
func (h *harness) signUp(email string) (string, string) {
	h.t.Helper()
	r := h.post("/api/auth/signup/email", "", map[string]any{"email": email, "password": pw})
	expect(h.t, r, 200, "")
	id := r.JSON(h.t)["userId"].(string)
	v := h.post("/api/auth/signup/email", "", map[string]any{"userId": id, "verificationCode": h.Mail.Code(email)})
	expect(h.t, v, 200, "")
	tok := v.JSON(h.t)["token"].(string)
	if v.JSON(h.t)["passwordRequired"] != true {
		return id, tok
	}
	// An administrator's address: the password is set after the proof.
	set := h.post("/api/users/user/"+id+"/password", tok, map[string]any{"newPassword": pw})
	expect(h.t, set, 200, "")
	return id, set.JSON(h.t)["token"].(string)
}

func errBody(code, msg string) string {
	return `{"success":false,"error":"` + msg + `","code":"` + code + `","message":"` + msg + `"}`
}

func TestSignUpAndVerification(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		r := h.post("/api/auth/signup/email", "", map[string]any{"email": " Ann@Example.com", "password": pw})
		expect(t, r, 200, `{"success":true,"code":"verification_required","userId":"<string>","message":"<string>"}`)
		id := r.JSON(t)["userId"].(string)
		code := h.Mail.Code("ann@example.com")
		if len(code) != 6 {
			t.Fatalf("no code mailed: %v", h.Mail.All())
		}

		// awaiting verification: login refused, wrong code refused
		expect(t, h.post("/api/auth/login/email", "", map[string]any{"email": "ann@example.com", "password": pw}),
			403, errBody("email_not_verified", "verify your e-mail before logging in"))
		wrong := "000000"
		if code == wrong {
			wrong = "999999"
		}
		expect(t, h.post("/api/auth/signup/email", "", map[string]any{"userId": id, "verificationCode": wrong}),
			400, errBody("invalid_code", "invalid or expired code"))

		v := h.post("/api/auth/signup/email", "", map[string]any{"userId": id, "verificationCode": code})
		expect(t, v, 200, `{"success":true,"code":"verification_success","userId":"`+id+`","token":"<string>","message":"<string>"}`)
		token := v.JSON(t)["token"].(string)
		expect(t, h.get("/api/users/user/"+id, token), 200,
			`{"success":true,"userId":"`+id+`","email":"ann@example.com","displayName":"","timezone":"","locale":"en","createdAt":`+ms(h.Clock.Now())+`,"signInMethods":["password"]}`)

		// the code is single use; the e-mail is now taken
		expect(t, h.post("/api/auth/signup/email", "", map[string]any{"userId": id, "verificationCode": code}),
			400, errBody("invalid_code", "invalid or expired code"))
		expect(t, h.post("/api/auth/signup/email", "", map[string]any{"email": "ANN@example.com", "password": pw}),
			409, errBody("email_already_registered", "this e-mail is already registered"))
		expect(t, h.post("/api/auth/signup/email", "", map[string]any{"email": "ann@example.com", "password": "short"}),
			409, errBody("email_already_registered", "this e-mail is already registered"))
		expect(t, h.post("/api/auth/signup/email", "", map[string]any{"userId": "nobody", "verificationCode": "123456"}),
			404, errBody("user_not_found", "user not found"))
	})
}

func TestVerificationCodeExpiresAndDiesAfterFiveWrongTries(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		id := h.post("/api/auth/signup/email", "", map[string]any{"email": "a@x.io", "password": pw}).JSON(t)["userId"].(string)
		code := h.Mail.Code("a@x.io")
		wrong := "000000"
		if code == wrong {
			wrong = "999999"
		}
		for range 5 {
			expect(t, h.post("/api/auth/signup/email", "", map[string]any{"userId": id, "verificationCode": wrong}), 400, "")
		}
		r := h.post("/api/auth/signup/email", "", map[string]any{"userId": id, "verificationCode": code})
		expect(t, r, 429, errBody("too_many_attempts", "too many wrong codes; request a new one"))
		if r.Header.Get("Retry-After") == "" {
			t.Fatal("429 without Retry-After")
		}

		// a new sign-up sends a fresh code, which then expires after 15 minutes
		expect(t, h.post("/api/auth/signup/email", "", map[string]any{"email": "a@x.io", "password": pw}), 200, "")
		fresh := h.Mail.Code("a@x.io")
		h.Clock.Advance(15 * time.Minute)
		expect(t, h.post("/api/auth/signup/email", "", map[string]any{"userId": id, "verificationCode": fresh}),
			400, errBody("invalid_code", "invalid or expired code"))
	})
}

func TestLogin(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		id, _ := h.signUp("a@x.io")
		r := h.post("/api/auth/login/email", "", map[string]any{"email": "A@x.io ", "password": pw})
		expect(t, r, 200, `{"success":true,"userId":"`+id+`","token":"<string>","message":"<string>"}`)
		expect(t, h.get("/api/users/user/"+id, r.JSON(t)["token"].(string)), 200, "")

		missing := `{"success":false,"error":"email and password are required","code":"invalid_request","message":"email and password are required"}`
		expect(t, h.post("/api/auth/login/email", "", map[string]any{"email": "a@x.io"}), 400, missing)
		expect(t, h.post("/api/auth/login/email", "", map[string]any{"password": pw}), 400, missing)
		expect(t, h.post("/api/auth/login/email", "", map[string]any{"email": "", "password": ""}), 400, missing)
		expect(t, h.do(req{Method: "POST", Path: "/api/auth/login/email", Body: ""}), 400, missing)
		bad := errBody("invalid_credentials", "invalid e-mail or password")
		expect(t, h.post("/api/auth/login/email", "", map[string]any{"email": "a@x.io", "password": "wrong-pass"}), 401, bad)
		expect(t, h.post("/api/auth/login/email", "", map[string]any{"email": "ghost@x.io", "password": pw}), 401, bad)
	})
}

func TestTenFailedLoginsAreRateLimited(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		h.signUp("a@x.io")
		for range 10 {
			expect(t, h.post("/api/auth/login/email", "", map[string]any{"email": "a@x.io", "password": "wrong-pass"}), 401, "")
		}
		r := h.post("/api/auth/login/email", "", map[string]any{"email": "a@x.io", "password": pw})
		expect(t, r, 429, errBody("rate_limited", "too many requests, try again later"))
		if r.Header.Get("Retry-After") == "" {
			t.Fatal("no Retry-After")
		}
	})
}

func TestPasswordReset(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		id, oldToken := h.signUp("a@x.io")
		expect(t, h.post("/api/auth/reset", "", map[string]any{"email": "ghost@x.io"}), 404, errBody("user_not_found", "user not found"))
		expect(t, h.post("/api/auth/reset", "", map[string]any{"userId": id, "newPassword": "brand-new-pass"}),
			400, errBody("invalid_code", "send the verified code or the resetToken with the new password"))

		expect(t, h.post("/api/auth/reset", "", map[string]any{"email": "a@x.io"}), 200,
			`{"success":true,"code":"reset_code_sent","userId":"`+id+`","message":"<string>"}`)
		code := h.Mail.Code("a@x.io")
		wrong := "000000"
		if code == wrong {
			wrong = "999999"
		}
		expect(t, h.post("/api/auth/reset", "", map[string]any{"userId": id, "code": wrong}), 400, errBody("invalid_code", "invalid or expired code"))
		v := h.post("/api/auth/reset", "", map[string]any{"userId": id, "code": code})
		expect(t, v, 200, `{"success":true,"code":"code_valid","valid":true,"resetToken":"<string>","message":"<string>"}`)
		r := h.post("/api/auth/reset", "", map[string]any{"userId": id, "newPassword": "brand-new-pass",
			"resetToken": v.JSON(t)["resetToken"]})
		expect(t, r, 200, `{"success":true,"code":"password_updated","userId":"`+id+`","token":"<string>","message":"<string>"}`)
		newToken := r.JSON(t)["token"].(string)

		// every older token is revoked at once; the new one and the new password work
		expect(t, h.get("/api/users/user/"+id, oldToken), 401, errBody("unauthorized", "missing, invalid or expired token"))
		expect(t, h.get("/api/users/user/"+id, newToken), 200, "")
		expect(t, h.post("/api/auth/login/email", "", map[string]any{"email": "a@x.io", "password": pw}), 401, "")
		expect(t, h.post("/api/auth/login/email", "", map[string]any{"email": "a@x.io", "password": "brand-new-pass"}), 200, "")
		expect(t, h.post("/api/auth/reset", "", map[string]any{"userId": id, "newPassword": "again-new-pass"}), 400, "")
		expect(t, h.post("/api/auth/reset", "", map[string]any{"nothing": true}), 400,
			errBody("invalid_request", "send {email}, {userId, code} or {userId, newPassword, code or resetToken}"))
	})
}

func TestLogoutAndTokenGuards(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		id, token := h.signUp("a@x.io")
		other, otherToken := h.signUp("b@x.io")
		expect(t, h.get("/api/users/user/"+id, ""), 401,
			errBody("unauthorized", "authentication required: send Authorization: Bearer <token>"))
		expect(t, h.get("/api/users/user/"+id, "not-a-token"), 401, errBody("unauthorized", "missing, invalid or expired token"))
		expect(t, h.do(req{Method: "GET", Path: "/api/users/user/" + id, Headers: map[string]string{"Authorization": "Basic abc"}}),
			401, errBody("unauthorized", "use Authorization: Bearer <token>"))
		expect(t, h.get("/api/users/user/"+other, token), 403, errBody("forbidden", "you may only act on your own account"))
		expect(t, h.get("/api/users/user/"+other, otherToken), 200, "")

		expect(t, h.post("/api/auth/logout", token, nil), 200, `{"success":true,"message":"logged out"}`)
		expect(t, h.get("/api/users/user/"+id, token), 401, "")
		expect(t, h.post("/api/auth/logout", token, nil), 401, "")

		// tokens live 90 days
		_, fresh := h.login("b@x.io")
		h.Clock.Advance(90 * 24 * time.Hour)
		expect(t, h.get("/api/users/user/"+other, fresh), 401, "")
	})
}

func (h *harness) login(email string) (string, string) {
	h.t.Helper()
	r := h.post("/api/auth/login/email", "", map[string]any{"email": email, "password": pw})
	expect(h.t, r, 200, "")
	m := r.JSON(h.t)
	return m["userId"].(string), m["token"].(string)
}

func TestProfile(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		id, token := h.signUp("a@x.io")
		patch := func(body any) response {
			return h.do(req{Method: "PATCH", Path: "/api/users/user/" + id, Token: token, Body: body})
		}
		created := ms(h.Clock.Now())
		expect(t, patch(map[string]any{"displayName": " Ann ", "timezone": "Europe/Paris"}), 200,
			`{"success":true,"userId":"`+id+`","email":"a@x.io","displayName":"Ann","timezone":"Europe/Paris","locale":"en","createdAt":`+created+`,"signInMethods":["password"]}`)
		expect(t, patch(map[string]any{"timezone": "Mars/Olympus"}), 400,
			errBody("invalid_request", "timezone must be an IANA name such as Europe/Paris"))
		expect(t, patch(map[string]any{"displayName": strings.Repeat("n", 101)}), 400,
			errBody("invalid_request", "displayName must be at most 100 characters"))
		expect(t, patch(map[string]any{"timezone": 5}), 400, errBody("invalid_request", "field timezone must be a string"))
		expect(t, h.get("/api/users/user/"+id, token), 200,
			`{"success":true,"userId":"`+id+`","email":"a@x.io","displayName":"Ann","timezone":"Europe/Paris","locale":"en","createdAt":`+created+`,"signInMethods":["password"]}`)
	})
}

func TestBadAuthInputStoresNothing(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		big := strings.Repeat("a", 10*1024) + "@x.io"
		signUp := func(body any) req { return POST("/api/auth/signup/email", body) }
		refused := func(code string) string {
			return `{"success":false,"error":"<string>","code":"` + code + `","message":"<string>"}`
		}
		noMail := func(t *testing.T, h *harness) {
			if n := len(h.Mail.All()); n != 0 {
				t.Fatalf("%d mails sent for refused sign-ups", n)
			}
		}
		runScenarios(t, h, afterEach(noMail, []scenario{
			{name: "malformed JSON", req: signUp(`{"email": "v@x.io", "password": `), status: 400, want: refused("invalid_request")},
			{name: "wrong type", req: signUp(`{"email": 42, "password": "correct-horse-1"}`), status: 400, want: refused("invalid_request")},
			{name: "empty strings", req: signUp(map[string]any{"email": "", "password": ""}), status: 400, want: refused("invalid_request")},
			{name: "e-mail of 10 KB", req: signUp(map[string]any{"email": big, "password": pw}), status: 400, want: refused("invalid_request")},
			{name: "short password", req: signUp(map[string]any{"email": "v@x.io", "password": "short"}), status: 400,
				want: refused("invalid_request")},
			{name: "body of 10 MB", req: signUp(`{"email":"v@x.io","password":"` + strings.Repeat("p", 10<<20) + `"}`), status: 413,
				want: refused("payload_too_large")},
			{name: "array body", req: signUp(`[]`), status: 400, want: refused("invalid_request")},
		}))
		expect(t, h.post("/api/auth/reset", "", map[string]any{"email": "v@x.io"}), 404, errBody("user_not_found", "user not found"))
	})
}

func TestAuthRoutesAreRateLimitedPerIP(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		for range 3 {
			expect(t, h.post("/api/auth/login/email", "", map[string]any{"email": "a@x.io", "password": pw}), 401, "")
		}
		r := h.post("/api/auth/reset", "", map[string]any{"email": "a@x.io"})
		expect(t, r, 429, errBody("rate_limited", "too many requests, try again later"))
		if r.Header.Get("Retry-After") == "" {
			t.Fatal("no Retry-After")
		}
		expect(t, h.get("/healthz", ""), 200, "") // other routes are not counted
	}, withEnv("TANDEM_RATE_LIMIT_IP", "3"))
}

func ms(t time.Time) string { return itoa(t.UnixMilli()) }

func TestResetCodeExpiresAfterFifteenMinutes(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		id, _ := h.signUp("a@x.io")
		expect(t, h.post("/api/auth/reset", "", map[string]any{"email": "a@x.io"}), 200, "")
		code := h.Mail.Code("a@x.io")
		h.Clock.Advance(15 * time.Minute)
		expect(t, h.post("/api/auth/reset", "", map[string]any{"userId": id, "code": code}), 400,
			errBody("invalid_code", "invalid or expired code"))
		expect(t, h.post("/api/auth/reset", "", map[string]any{"userId": id, "code": code, "newPassword": "brand-new-pass"}), 400,
			errBody("invalid_code", "verify a reset code first"))
		expect(t, h.post("/api/auth/login/email", "", map[string]any{"email": "a@x.io", "password": pw}), 200, "")
	})
}
