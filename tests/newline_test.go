package tests

import (
	"encoding/json"
	"strconv"
	"testing"

	"tandem/adapters/httpapi"
)

// TestEveryJSONAnswerEndsWithANewline: each way the server writes JSON (the
// success writer, the error mapper, the hand-written event list and home
// screen, a replayed Idempotency-Key answer, /openapi.json, the health
// routes, the association files) ends its body with "\n", which
// Content-Length counts, and the body still parses as one JSON value.
func TestEveryJSONAnswerEndsWithANewline(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u := h.newUser("a@x.io")
		event := withAction(map[string]any{"title": "Dentist", "startDate": "2025-06-20"})
		sendKeyed := func(key string, body any) req {
			return POST("/api/messages/send", body).by(u).withKey().with("Idempotency-Key", key)
		}
		cases := []struct {
			name   string
			req    req
			status int
		}{
			{"a success (c.JSON)", GET("/api/users/user/" + u.ID).by(u), 200},
			{"a create", POST(eventsPath(u), event).by(u), 200},
			{"the event list (written by hand)", GET(eventsPath(u)).by(u), 200},
			{"the home screen (written by hand)", GET("/api/users/user/" + u.ID + "/home").by(u), 200},
			{"a bare array", GET("/api/messages/list").by(u).withKey(), 200},
			{"a 401 (the error mapper)", GET("/api/users/user/" + u.ID), 401},
			{"a 400 for a missing field", POST("/api/auth/login/email", map[string]any{}), 400},
			{"a 404 of no route (Fiber's error)", GET("/api/nothing"), 404},
			{"a 405", PUT("/healthz", nil), 405},
			{"a message kept for its key", sendKeyed("nl-1", map[string]any{"body": "hi"}), 200},
			{"the same message replayed", sendKeyed("nl-1", map[string]any{"body": "hi"}), 200},
			{"a refusal kept for its key", sendKeyed("nl-2", map[string]any{"body": ""}), 400},
			{"the same refusal replayed", sendKeyed("nl-2", map[string]any{"body": ""}), 400},
			{"/openapi.json", GET("/openapi.json"), 200},
			{"/healthz", GET("/healthz"), 200},
			{"/readyz", GET("/readyz"), 200},
			{"an association file", GET("/.well-known/apple-app-site-association"), 200},
		}
		replays := 0
		for _, tc := range cases {
			r := h.do(tc.req)
			if r.Status != tc.status {
				t.Fatalf("%s: %s %s answered %d, want %d: %s", tc.name, tc.req.Method, tc.req.Path, r.Status, tc.status, r.Body)
			}
			if !isJSON(r.Header.Get("Content-Type")) {
				t.Fatalf("%s: content type %q", tc.name, r.Header.Get("Content-Type"))
			}
			if len(r.Body) < 2 || r.Body[len(r.Body)-1] != '\n' || r.Body[len(r.Body)-2] == '\n' {
				t.Errorf("%s: the body does not end with one newline: %q", tc.name, r.Body)
			}
			if !json.Valid(r.Body) {
				t.Errorf("%s: the body is not JSON: %q", tc.name, r.Body)
			}
			if cl := r.Header.Get("Content-Length"); cl != "" && cl != strconv.Itoa(len(r.Body)) {
				t.Errorf("%s: Content-Length %s for %d bytes", tc.name, cl, len(r.Body))
			}
			if r.Header.Get(httpapi.HeaderReplayed) == "true" {
				replays++
			}
		}
		if replays != 2 {
			t.Fatalf("%d answers replayed, want 2", replays)
		}
	}, withEnv("TANDEM_APPLE_APP_IDS", "ABCDE12345.app.tandem"))
}
