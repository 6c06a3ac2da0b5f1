package console

import (
	"testing"
	"time"
)

func TestEveryPageParsesWithTheLayout(t *testing.T) {
	pages, err := parsePages()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"signin", "error", "overview", "flags", "flag", "versions", "feedback", "users", "user", "delete", "audit"} {
		if pages[name] == nil {
			t.Errorf("no page %s", name)
		}
	}
}

func TestPathsAndSchemes(t *testing.T) {
	for path, want := range map[string]bool{"/admin": true, "/ADMIN/flags": true, "/admin/": true, "/administrator": false,
		"/api/admin/feedback": false, "/": false} {
		if isConsole(path) != want {
			t.Errorf("isConsole(%q) = %v", path, !want)
		}
	}
	for u, want := range map[string]bool{"https://x.io": true, "HTTPS://x.io": true, "http://x.io": false, "%": false} {
		if IsHTTPS(u) != want {
			t.Errorf("IsHTTPS(%q) = %v", u, !want)
		}
	}
}

func TestWhenShowsEveryInstantInUTCToTheMinute(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*3600)
	for _, tc := range []struct {
		at   time.Time
		want string
	}{
		{time.Date(2025, 6, 15, 12, 0, 59, 999, time.UTC), "2025-06-15 12:00 UTC"},
		{time.Date(2025, 6, 16, 8, 5, 0, 0, tokyo), "2025-06-15 23:05 UTC"},
		{time.Time{}, "—"},
	} {
		if got := when(tc.at); got != tc.want {
			t.Errorf("when(%v) = %q, want %q", tc.at, got, tc.want)
		}
	}
}
