package tests

import (
	"testing"
)

// BenchmarkAuthenticatedRequest measures one authenticated API request over
// loopback HTTP (GET profile: token check through the warm 5 s cache, then
// one account read), per profile.
func BenchmarkAuthenticatedRequest(b *testing.B) {
	for _, p := range profiles(b) {
		b.Run(p.name, func(b *testing.B) {
			h := newHarness(b, p)
			u := h.newUser("bench@x.io")
			path := "/api/users/user/" + u.ID
			expect(b, h.get(path, u.Token), 200, "")
			b.ReportAllocs()
			for b.Loop() {
				if r := h.get(path, u.Token); r.Status != 200 {
					b.Fatalf("status %d", r.Status)
				}
			}
		})
	}
}
