package httpapi_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"tandem/core"
	"tandem/modules/memories"
)

type memoryRecord struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Date        string   `json:"date"`
	Images      []string `json:"images"`
	CreatedAt   int64    `json:"createdAt"`
	UpdatedAt   int64    `json:"updatedAt"`
}

// imageAddress is an address of a file this server hands out.
var imageAddress = regexp.MustCompile(`^` + regexp.QuoteMeta(fuzzPublicURL) + `/files/[A-Za-z0-9_-][A-Za-z0-9._-]*(/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$`)

// FuzzMemoryBody: any body of POST .../memories (create) and PUT
// .../memories/{id} gets a 200 or a 4xx with the error body; a memory the
// API accepts holds only what the rules allow (title 1-200 and description
// ≤ 5000, trimmed, no control or bidi characters; a real date from
// 1900-01-01 to tomorrow's UTC date; at most 20 unique addresses of this
// server's files, no dot segments), an update changes only title and
// description, and the stored memory reads back as answered.
func FuzzMemoryBody(f *testing.F) {
	f.Add([]byte(`{"action":"create","title":"Beach","date":"2025-06-01"}`), false)
	f.Add([]byte(`{"action":"create","title":" Paris ","description":"x\ty","date":"2025-06-16","images":["https://tandem.example/files/u/a/0123456789abcdef0123456789abcdef.jpg"," https://tandem.example/files/u/a/0123456789abcdef0123456789abcdef.jpg"]}`), false)
	f.Add([]byte(`{"action":"create","title":"x","date":"2025-06-17"}`), false)
	f.Add([]byte(`{"title":"New title","date":"2025-06-01","images":[]}`), true)
	f.Add([]byte(`{"date":"2024-01-01"}`), true)
	f.Add([]byte(`{"action":"create","title":"x","date":"1899-12-31","images":["https://evil.example/x.jpg"]}`), false)
	f.Fuzz(func(t *testing.T, body []byte, update bool) {
		a := apiForFuzz(t)
		a.mu.Lock()
		defer a.mu.Unlock()
		base := "/api/users/user/" + a.user.ID + "/memories/"
		path, method := base, "POST"
		var seed memoryRecord
		if update {
			seed = decodeAs[memoryRecord](t, a.must(t, "POST", base, a.user.Token,
				[]byte(`{"action":"create","title":"Seed","description":"d","date":"2025-06-01"}`)))
			path, method = base+seed.ID, "PUT"
			defer a.must(t, "DELETE", path, a.user.Token, nil)
		}
		st, b := a.send(t, method, path, a.user.Token, body)
		if st != 200 {
			return
		}
		m := decodeAs[memoryRecord](t, b)
		if !update {
			defer a.must(t, "DELETE", base+m.ID, a.user.Token, nil)
		}
		textRule(t, "title", m.Title, 1, memories.MaxTitle, false, true)
		textRule(t, "description", m.Description, 0, memories.MaxDescription, true, true)
		d, err := core.ParseDate(m.Date)
		tomorrow := core.Today(a.clock.Now(), nil).AddDays(1)
		if err != nil || d.String() != m.Date || d.Before(memories.MinDate) || d.After(tomorrow) {
			t.Fatalf("date %q", m.Date)
		}
		if m.Images == nil || len(m.Images) > memories.MaxImages {
			t.Fatalf("%d images", len(m.Images))
		}
		for i, img := range m.Images {
			if !imageAddress.MatchString(img) || len(img) > memories.MaxImageURL || slices.Index(m.Images, img) != i {
				t.Fatalf("images %q", m.Images)
			}
		}
		if update && (m.Date != seed.Date || !slices.Equal(m.Images, seed.Images)) {
			t.Fatalf("an update changed date or images: %+v to %+v", seed, m)
		}
		if sent, ok := textFields(body); ok {
			if title, set := sent["title"]; set && strings.TrimSpace(title) != m.Title {
				t.Fatalf("title %q was stored as %q", title, m.Title)
			}
		}
		if stored := a.must(t, "GET", base+m.ID, a.user.Token, nil); string(stored) != string(b) {
			t.Fatalf("answered %s, stored %s", b, stored)
		}
	})
}
