package console

import "testing"

func TestEveryPageParsesWithTheLayout(t *testing.T) {
	pages, err := parsePages()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"signin", "error", "overview", "flags", "flag", "versions", "feedback", "users", "delete", "audit"} {
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
