package tests

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A push provider that accepts connections and never answers: the request
// that pushes answers within TANDEM_PUSH_TIMEOUT with the notification saved
// and not sent, and routes that push nothing do not notice.
func TestFaultDeadPushProvider(t *testing.T) {
	parallel(t)
	release := make(chan struct{})
	dead := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); dead.Close() })
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
		h.pair(ann, bob)
		expect(t, h.post("/api/users/user/"+bob.ID+"/devices", bob.Token,
			map[string]any{"token": "ExponentPushToken[bob]", "platform": "ios", "provider": "expo"}), 200, "")

		timed := func(what string, within time.Duration, send func() response) response {
			t.Helper()
			start := time.Now()
			r := send()
			if took := time.Since(start); took > within {
				t.Fatalf("%s took %v with a dead provider", what, took)
			}
			return r
		}
		r := timed("a test push", 2*time.Second, func() response {
			return h.post("/api/users/user/"+bob.ID+"/send-test-notification", bob.Token,
				map[string]any{"title": "Hi", "message": "test", "category": "systemUpdates"})
		})
		expect(t, r, 200, `{"success":true,"message":"<string>","notificationType":"<string>","userOptedIn":true,
			"saved":true,"sent":0,"total":1,"action":"saved_only"}`)
		// a message pushes the partner's activity: it still answers in time
		timed("a message", 2*time.Second, func() response {
			return h.keyed("POST", "/api/messages/send", ann, map[string]any{"body": "are you there?"})
		})
		unread := h.get("/api/users/user/"+bob.ID+"/notifications/unread", bob.Token)
		expect(t, unread, 200, `{"success":true,"unreadCount":2}`)
		timed("a read", time.Second, func() response { return h.get("/api/users/user/"+ann.ID, ann.Token) })
	}, withEnv("TANDEM_PUSH", "expo?url="+dead.URL+"/--/api/v2/push/send"), withEnv("TANDEM_PUSH_TIMEOUT", "300ms"))
}

// An S3 endpoint that accepts connections and never answers: an upload
// answers 503 unavailable within the request timeout and stores no image;
// routes that touch no file do not notice.
func TestFaultDeadS3Endpoint(t *testing.T) {
	parallel(t)
	release := make(chan struct{})
	dead := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); dead.Close() })
	endpoint := strings.TrimPrefix(dead.URL, "http://")
	for _, p := range profiles(t) {
		t.Run(p.name, func(t *testing.T) {
			h := newHarness(t, p, withEnv("TANDEM_BLOBS", "s3://photos?endpoint="+endpoint+"&region=us-east-1&secure=false"),
				withEnv("TANDEM_REQUEST_TIMEOUT", "1s"))
			u := h.newUser("s3@x.io")
			start := time.Now()
			r := h.upload(u, filePart("p.png", "image/png", pngFile(t)))
			if took := time.Since(start); took > 5*time.Second { // the request timeout, then at most 2 s of clean-up
				t.Fatalf("the upload took %v with a dead S3", took)
			}
			expect(t, r, 503, errBody("unavailable", "service unavailable"))
			expect(t, h.get(imagesPath(u), u.Token), 200, `[]`)
			start = time.Now()
			expect(t, h.get("/api/users/user/"+u.ID, u.Token), 200, "")
			if took := time.Since(start); took > time.Second { // far under the dead store's timeouts, room for a loaded machine
				t.Fatalf("a read took %v", took)
			}
		})
	}
}
