package tests

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// A push provider that accepts connections and never answers: the request
// that pushes answers within TANDEM_PUSH_TIMEOUT with the notification saved
// and not sent, and routes that push nothing do not notice.
func TestFaultDeadPushProvider(t *testing.T) {
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
		timed("a read", 200*time.Millisecond, func() response { return h.get("/api/users/user/"+ann.ID, ann.Token) })
	}, withEnv("TANDEM_PUSH", "expo?url="+dead.URL+"/--/api/v2/push/send"), withEnv("TANDEM_PUSH_TIMEOUT", "300ms"))
}
