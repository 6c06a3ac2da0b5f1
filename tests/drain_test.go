package tests

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
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

// TestDrainingClosesEveryKeepAliveConnectionCleanly: 32 clients keep their
// keep-alive connections busy through the stop. From the stop on, each
// answer says Connection: close and /readyz 503, so every client leaves
// after the answer it got (as a load balancer takes the process out): not
// one request goes into a closing socket.
func TestDrainingClosesEveryKeepAliveConnectionCleanly(t *testing.T) {
	h := newHarness(t, profile{name: "memory"}, withEnv("TANDEM_SHUTDOWN_GRACE", "3s"))
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	client := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	const clients = 32
	var served, failed, closedBy atomic.Int64
	var wg sync.WaitGroup
	var errOnce sync.Once
	stopping := make(chan struct{})
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				res, err := client.Get(h.base + "/api/version-check?platform=ios&version=1.0.0")
				if err != nil {
					failed.Add(1)
					errOnce.Do(func() { t.Errorf("a request failed: %v", err) })
					return
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				served.Add(1)
				if res.Close { // Connection: close: this client leaves
					closedBy.Add(1)
					return
				}
				select {
				case <-stopping:
				default:
					if served.Load() > 200*clients {
						t.Error("the server never said Connection: close")
						return
					}
				}
			}
		}()
	}
	for served.Load() < 4*clients {
		time.Sleep(time.Millisecond)
	}
	close(stopping)
	stopped := make(chan error, 1)
	start := time.Now()
	go func() { stopped <- h.app.Stop(context.Background()) }()
	wg.Wait()
	// Every client left after an answer saying Connection: close, but the
	// transport may hold a spare keep-alive connection that served an
	// earlier request and then no request during the stop (seen once in CI
	// under load), as may the harness's own client: those close too, as a
	// client's idle connections do, or the stop rightly waits for them.
	tr.CloseIdleConnections()
	h.client.CloseIdleConnections()
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	if failed.Load() != 0 || closedBy.Load() != clients {
		t.Fatalf("%d requests served, %d failed, %d of %d clients told to close", served.Load(), failed.Load(), closedBy.Load(), clients)
	}
	if took := time.Since(start); took >= 3*time.Second {
		t.Fatalf("the stop waited the whole grace (%v) though every connection had closed", took)
	}
}

// While stopping, /readyz says 503 so a load balancer takes the process out.
func TestReadyzIs503WhileDraining(t *testing.T) {
	h := newHarness(t, profile{name: "memory"}, withEnv("TANDEM_SHUTDOWN_GRACE", "2s"))
	expect(t, h.get("/readyz", ""), 200, `{"status":"ready"}`)
	// a keep-alive connection held open keeps the server in its grace
	hold := &http.Client{Transport: &http.Transport{}}
	res, err := hold.Get(h.base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	go func() { _ = h.app.Stop(context.Background()) }()
	deadline := time.Now().Add(time.Second)
	for {
		c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		res, err := c.Get(h.base + "/readyz")
		if err == nil {
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode == 503 {
				expect(t, response{Status: 503, Body: b}, 503, errBody("unavailable", "service unavailable"))
				if !res.Close {
					t.Fatal("a draining answer kept its connection")
				}
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("/readyz never said 503 while draining")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A connection opened ahead and never used (a load balancer's, or a
// client's spare) does not hold the stop until the 30 s read timeout.
func TestAConnectionThatNeverSpokeDoesNotHoldTheStop(t *testing.T) {
	h := newHarness(t, profile{name: "memory"}, withEnv("TANDEM_SHUTDOWN_GRACE", "200ms"))
	silent, err := net.Dial("tcp", strings.TrimPrefix(h.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	time.Sleep(50 * time.Millisecond) // accepted
	start := time.Now()
	if err := h.app.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("a silent connection held the stop for %v", took)
	}
}
