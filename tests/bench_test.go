package tests

import (
	"testing"
)

// BenchmarkAuthenticatedRequest measures one authenticated API request over
// loopback HTTP (GET profile: token check through the warm 5 s cache, then
// one account read), per profile.
func BenchmarkAuthenticatedRequest(b *testing.B) {
	benchScenario(b, func(h *harness) scenario {
		u := h.newUser("bench@x.io")
		return scenario{req: GET("/api/users/user/" + u.ID).by(u), status: 200}
	})
}
