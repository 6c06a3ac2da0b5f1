package tests

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"mime/multipart"
	"net/textproto"
	"strings"
	"testing"
	"time"
)

// The Idempotency-Key header (IETF httpapi draft) on the create routes: the
// first completed answer is kept per (user, key) for 24 hours and replayed
// to a retry with the same body; another body is 422; a retry while the
// first runs is 409. The stored effect is read back through the API.

// idemRoute is one create route under test: how to send a body to it, a
// body and another one, and how many records a user has there.
type idemRoute struct {
	name   string
	send   func(h *harness, u user, key string, body any) response
	body   any
	other  any
	stored func(t *testing.T, h *harness, u user) int
}

func withKey(key string) map[string]string { return map[string]string{"Idempotency-Key": key} }

var idemRoutes = []idemRoute{
	{
		name: "messages",
		send: func(h *harness, u user, key string, body any) response {
			hd := withKey(key)
			hd["X-API-Key"] = testAPIKey
			return h.do(req{Method: "POST", Path: "/api/messages/send", Token: u.Token, Body: body, Headers: hd})
		},
		body:  map[string]any{"body": "see you at eight"},
		other: map[string]any{"body": "see you at nine"},
		stored: func(t *testing.T, h *harness, u user) int {
			r := h.keyed("GET", "/api/messages/list", u, nil)
			expect(t, r, 200, "")
			return len(jsonArray(t, r))
		},
	},
	{
		name: "events",
		send: func(h *harness, u user, key string, body any) response {
			return h.do(req{Method: "POST", Path: eventsPath(u), Token: u.Token, Body: body, Headers: withKey(key)})
		},
		body:  withAction(map[string]any{"title": "Dentist", "startDate": "2025-06-20"}),
		other: withAction(map[string]any{"title": "Dentist", "startDate": "2025-06-21"}),
		stored: func(t *testing.T, h *harness, u user) int {
			r := h.get(eventsPath(u), u.Token)
			expect(t, r, 200, "")
			return len(jsonArray(t, r))
		},
	},
	{
		name: "memories",
		send: func(h *harness, u user, key string, body any) response {
			return h.do(req{Method: "POST", Path: memoriesPath(u), Token: u.Token, Body: body, Headers: withKey(key)})
		},
		body:  withAction(map[string]any{"title": "Christmas", "date": "2024-12-24"}),
		other: withAction(map[string]any{"title": "New Year", "date": "2024-12-31"}),
		stored: func(t *testing.T, h *harness, u user) int {
			r := h.get(memoriesPath(u), u.Token)
			expect(t, r, 200, "")
			return len(jsonArray(t, r))
		},
	},
	{
		name: "feedback",
		send: func(h *harness, u user, key string, body any) response {
			return h.do(req{Method: "POST", Path: feedbackPath(u), Token: u.Token, Body: body, Headers: withKey(key)})
		},
		body:  map[string]any{"feedbackMessage": "Love the app"},
		other: map[string]any{"feedbackMessage": "Love the app!"},
		stored: func(t *testing.T, h *harness, u user) int {
			r := h.get(feedbackPath(u), u.Token)
			expect(t, r, 200, "")
			return len(r.JSON(t)["feedback"].([]any))
		},
	},
	{
		// The upload's body is hashed as it streams; a noisy image makes
		// it larger than what the server reads before the handlers.
		name: "images",
		send: func(h *harness, u user, key string, body any) response {
			b := idemUpload(h.t, body.(int64))
			return h.do(req{Method: "POST", Path: imagesPath(u), Token: u.Token, Body: b,
				Headers: map[string]string{"Content-Type": "multipart/form-data; boundary=idem", "Idempotency-Key": key}})
		},
		body:  int64(1),
		other: int64(2),
		stored: func(t *testing.T, h *harness, u user) int {
			r := h.get(imagesPath(u), u.Token)
			expect(t, r, 200, "")
			var list []any // the spec's list: each record a JSON string
			if err := json.Unmarshal(r.Body, &list); err != nil {
				t.Fatal(err)
			}
			return len(list)
		},
	},
}

// idemUpload is a multipart body with one noisy PNG (seeded: the same seed,
// the same bytes) under a fixed boundary, so a retry sends the same body.
func idemUpload(t testing.TB, seed int64) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 128, 128))
	x := uint32(seed)
	for i := range img.Pix {
		x = x*1664525 + 1013904223
		img.Pix[i] = byte(x >> 24)
	}
	img.Set(0, 0, color.RGBA{A: 255})
	var file bytes.Buffer
	if err := png.Encode(&file, img); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	if err := w.SetBoundary("idem"); err != nil {
		t.Fatal(err)
	}
	hdr := textproto.MIMEHeader{}
	hdr.Set("Content-Disposition", `form-data; name="file"; filename="noise.png"`)
	hdr.Set("Content-Type", "image/png")
	pw, err := w.CreatePart(hdr)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = pw.Write(file.Bytes())
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// expectReplay checks that r is first given again: same status and body,
// marked as replayed.
func expectReplay(t *testing.T, r, first response) {
	t.Helper()
	if r.Status != first.Status || string(r.Body) != string(first.Body) || r.Header.Get("Idempotent-Replayed") != "true" ||
		r.Header.Get("Content-Type") != first.Header.Get("Content-Type") {
		t.Fatalf("not a replay: %d %q %s\nfirst: %d %s", r.Status, r.Header.Get("Idempotent-Replayed"), r.Body, first.Status, first.Body)
	}
}

func TestIdempotencyKeyReplaysTheFirstAnswer(t *testing.T) {
	parallel(t)
	for _, rt := range idemRoutes {
		t.Run(rt.name, func(t *testing.T) {
			parallel(t)
			eachProfile(t, func(t *testing.T, h *harness) {
				ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
				first := rt.send(h, ann, "key-1", rt.body)
				expect(t, first, 200, "")
				if first.Header.Get("Idempotent-Replayed") != "" {
					t.Fatal("a first answer is marked as replayed")
				}
				h.Clock.Advance(time.Hour)
				expectReplay(t, rt.send(h, ann, "key-1", rt.body), first)
				if n := rt.stored(t, h, ann); n != 1 {
					t.Fatalf("%d records after a retry, want 1", n)
				}

				// The same key with another body: refused, nothing stored.
				msg := "this Idempotency-Key was used for a different request"
				expect(t, rt.send(h, ann, "key-1", rt.other), 422, errBody("idempotency_key_reused", msg))
				if n := rt.stored(t, h, ann); n != 1 {
					t.Fatalf("%d records after a reused key, want 1", n)
				}

				// Another user's same key is theirs.
				r := rt.send(h, bob, "key-1", rt.body)
				expect(t, r, 200, "")
				if r.Header.Get("Idempotent-Replayed") != "" || rt.stored(t, h, bob) != 1 {
					t.Fatalf("another user's key was replayed: %s", r.Body)
				}

				// After 24 hours the key is forgotten: the request runs again.
				h.Clock.Advance(23 * time.Hour)
				r = rt.send(h, ann, "key-1", rt.body)
				expect(t, r, 200, "")
				if r.Header.Get("Idempotent-Replayed") != "" || rt.stored(t, h, ann) != 2 {
					t.Fatalf("a key of 24 hours ago was replayed: %s", r.Body)
				}
			})
		})
	}
}

// TestIdempotencyKeyAtOnce: of concurrent requests with one key exactly one
// runs; the others get 409 idempotency_in_progress or the replay.
func TestIdempotencyKeyAtOnce(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u := h.newUser("ann@x.io")
		rt := idemRoutes[0]
		const n = 8
		rs := make([]req, n)
		for i := range rs {
			rs[i] = req{Method: "POST", Path: "/api/messages/send", Token: u.Token, Body: rt.body,
				Headers: map[string]string{"X-API-Key": testAPIKey, "Idempotency-Key": "same"}}
		}
		ran, first := 0, response{}
		var rest []response
		for _, r := range h.atOnce(rs...) {
			if r.Status == 200 && r.Header.Get("Idempotent-Replayed") == "" {
				ran++
				first = r
				continue
			}
			rest = append(rest, r)
		}
		if ran != 1 {
			t.Fatalf("%d requests ran, want 1", ran)
		}
		for _, r := range rest {
			if r.Status == 409 {
				expect(t, r, 409, errBody("idempotency_in_progress",
					"a request with this Idempotency-Key is still being processed; retry later"))
				continue
			}
			expectReplay(t, r, first)
		}
		if got := rt.stored(t, h, u); got != 1 {
			t.Fatalf("%d messages stored, want 1", got)
		}
	})
}

func TestIdempotencyKeyMustBeValid(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u := h.newUser("ann@x.io")
		msg := "Idempotency-Key must be 1 to 255 printable ASCII characters"
		for _, key := range []string{"", strings.Repeat("k", 256), "tab\there", "caf\u00e9"} {
			r := h.do(req{Method: "POST", Path: eventsPath(u), Token: u.Token,
				Body: withAction(map[string]any{"title": "Dentist", "startDate": "2025-06-20"}), Headers: withKey(key)})
			expect(t, r, 400, errBody("invalid_request", msg))
		}
		// Two keys: which one was meant is unknown.
		hr := h.request(req{Method: "POST", Path: eventsPath(u), Token: u.Token,
			Body: withAction(map[string]any{"title": "Dentist", "startDate": "2025-06-20"})})
		hr.Header.Add("Idempotency-Key", "a")
		hr.Header.Add("Idempotency-Key", "b")
		r, err := h.send(hr)
		if err != nil {
			t.Fatal(err)
		}
		expect(t, r, 400, errBody("invalid_request", "send one Idempotency-Key header"))
		expect(t, h.get(eventsPath(u), u.Token), 200, `[]`)
		// The longest key works.
		r = h.do(req{Method: "POST", Path: eventsPath(u), Token: u.Token,
			Body: withAction(map[string]any{"title": "Dentist", "startDate": "2025-06-20"}), Headers: withKey(strings.Repeat("k", 255))})
		expect(t, r, 200, "")
	})
}

// TestIdempotencyKeyKeepsARefusal: a 4xx answer is the request's answer
// and is replayed (the draft leaves it to the server; a fixed body needs a
// new key), while nothing is stored.
func TestIdempotencyKeyKeepsARefusal(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u := h.newUser("ann@x.io")
		bad := withAction(map[string]any{"title": "", "startDate": "2025-06-20"})
		first := h.do(req{Method: "POST", Path: eventsPath(u), Token: u.Token, Body: bad, Headers: withKey("k")})
		if first.Status != 400 {
			t.Fatalf("status %d: %s", first.Status, first.Body)
		}
		expectReplay(t, h.do(req{Method: "POST", Path: eventsPath(u), Token: u.Token, Body: bad, Headers: withKey("k")}), first)
		expect(t, h.get(eventsPath(u), u.Token), 200, `[]`)
	})
}

// A browser app may read the replay mark: CORS exposes it.
func TestIdempotentReplayedIsExposedToBrowsers(t *testing.T) {
	parallel(t)
	h := newHarness(t, profile{name: "memory"})
	r := h.do(req{Method: "GET", Path: "/api/version-check?platform=ios&version=1.0.0", Headers: map[string]string{"Origin": "https://app.example"}})
	if got := r.Header.Get("Access-Control-Expose-Headers"); !strings.Contains(got, "Idempotent-Replayed") {
		t.Fatalf("Access-Control-Expose-Headers %q", got)
	}
}
