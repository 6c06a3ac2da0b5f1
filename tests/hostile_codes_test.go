// This file holds the hostile table's code families: codes and tokens
// replayed or guessed, and codes and tokens used after their expiry.

package tests

import (
	"net/http"
	"testing"
	"time"
)

// codeRows replay codes and tokens that were used once already, and guess.
func (w *world) codeRows() []hostile {
	R := w.R.ID
	c := func(name string, q req, status int, want string) hostile {
		return hostile{scenario: scenario{name: "replayed code/" + name, req: q.anonymous(), status: status, want: want}}
	}
	invalidCode := errBody("invalid_code", "invalid or expired code")
	return []hostile{
		c("verification code", POST("/api/auth/signup/email", map[string]any{"userId": R, "verificationCode": w.verifyCode}), 400, invalidCode),
		c("reset code", POST("/api/auth/reset", map[string]any{"userId": R, "code": w.resetCode}), 400, invalidCode),
		c("reset token", POST("/api/auth/reset", map[string]any{"userId": R, "newPassword": "third-horse-3", "resetToken": w.resetToken}), 400, ""),
		c("reset code as the update's proof", POST("/api/auth/reset", map[string]any{"userId": R, "newPassword": "third-horse-3", "code": w.resetCode}), 400, ""),
		c("reset token for another user", POST("/api/auth/reset", map[string]any{"userId": w.V.ID, "newPassword": "third-horse-3", "resetToken": w.resetToken}), 400, ""),
		c("update without proof", POST("/api/auth/reset", map[string]any{"userId": w.V.ID, "newPassword": "third-horse-3"}), 400, ""),
		c("verification code of another user", POST("/api/auth/signup/email", map[string]any{"userId": w.V.ID, "verificationCode": w.verifyCode}), 400, invalidCode),
		c("reset code padded", POST("/api/auth/reset", map[string]any{"userId": R, "code": w.resetCode + "0"}), 400, invalidCode),
		{scenario: scenario{name: "replayed code/pairing code already used",
			req: POST(pairingPath(w.L), map[string]any{"action": "submit-code", "targetCode": w.usedPairingCode}).by(w.L)}},
		{scenario: scenario{name: "replayed code/own pairing code", status: 400,
			req: POST(pairingPath(w.R), map[string]any{"action": "submit-code", "targetCode": w.freshPairingCode}).by(w.R)}},
		{scenario: scenario{name: "replayed code/login with the password a reset replaced", status: 401,
			req: POST("/api/auth/login/email", map[string]any{"email": "replay@x.io", "password": pw}).anonymous()}},
	}
}

// expiryRows move the clock: a pairing code a day old, then every token
// past its 90 days. They run last.
func (w *world) expiryRows() []hostile {
	late := hostile{scenario: scenario{name: "expired/pairing code after 25 hours", status: 400,
		want: errBody("invalid_pairing_code", "invalid or expired pairing code"),
		req:  POST(pairingPath(w.L), map[string]any{"action": "submit-code", "targetCode": w.freshPairingCode}).by(w.L)},
		prepare: func(*testing.T) { w.h.Clock.Advance(25 * time.Hour) }}
	var rows = []hostile{late}
	past := func(t *testing.T) {
		w.h.Clock.Advance(91 * 24 * time.Hour) // the cache checks expiry against the clock too
		w.relogin(t)
	}
	for i, q := range []req{
		POST(eventsPath(w.A), map[string]any{"action": "create", "title": "late", "startDate": "2025-06-20"}).by(w.A),
		GET("/api/users/user/" + w.A.ID + "/export").by(w.A),
		POST("/api/messages/send", map[string]any{"body": "late"}).withKey().by(w.A),
	} {
		r := hostile{scenario: scenario{name: "expired/token after 91 days " + q.Method + " " + q.Path, req: q, status: 401,
			want: errBody("unauthorized", "missing, invalid or expired token")}}
		if i == 0 {
			r.prepare = past
		}
		rows = append(rows, r)
	}
	return rows
}

// relogin gives the users whose exports are compared new tokens.
func (w *world) relogin(t *testing.T) {
	for _, u := range []*user{&w.A, &w.C, &w.V, &w.P, &w.admin} {
		email := map[string]string{w.A.ID: "attacker@x.io", w.C.ID: "accomplice@x.io", w.V.ID: "victim@x.io",
			w.P.ID: "partner@x.io", w.admin.ID: "boss@x.io"}[u.ID]
		r, err := w.h.send(w.h.request(POST("/api/auth/login/email", map[string]any{"email": email, "password": pw})))
		if err != nil || r.Status != http.StatusOK {
			t.Fatalf("login %s: %d %s %v", email, r.Status, r.Body, err)
		}
		u.Token = r.JSON(t)["token"].(string)
	}
}
