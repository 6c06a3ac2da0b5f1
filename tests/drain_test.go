package tests

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"go.uber.org/fx"

	"tandem/adapters/httpapi"
)

// TestStopDrainsInFlightRequests: stopping the app (what SIGTERM does in
// `tandem serve`) lets a request already being handled finish with its 200.
func TestStopDrainsInFlightRequests(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	slow := fx.Provide(httpapi.AsRoute(func() httpapi.Route {
		return httpapi.RouteFunc(func(r fiber.Router) {
			r.Get("/test/slow", func(c *fiber.Ctx) error {
				close(entered)
				<-release
				return c.JSON(fiber.Map{"done": true})
			})
		})
	}))
	h := newHarness(t, profile{name: "memory"}, withFx(slow))
	got := make(chan response, 1)
	go func() { got <- h.get("/test/slow", "") }()
	<-entered
	stopped := make(chan error, 1)
	go func() { stopped <- h.app.Stop(context.Background()) }()
	waitUntilRefused(t, h.base+"/healthz") // shutdown is under way: no new connections
	select {
	case err := <-stopped:
		t.Fatalf("stop returned before the in-flight request finished: %v", err)
	default:
	}
	close(release)
	expect(t, <-got, 200, `{"done":true}`)
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
}

// waitUntilRefused polls with fresh connections until the server refuses one.
func waitUntilRefused(t *testing.T, url string) {
	t.Helper()
	for range 500 {
		c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: time.Second}
		res, err := c.Get(url)
		if err != nil {
			return
		}
		res.Body.Close()
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the server kept accepting connections while stopping")
}
