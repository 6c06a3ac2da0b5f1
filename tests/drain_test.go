package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"go.uber.org/fx"

	"tandem/adapters/sqlstore"
	"tandem/adapters/web"
)

// TestStopDrainsInFlightRequests: stopping the app (what SIGTERM does in
// `tandem serve`) lets a request already being handled finish with its 200.
func TestStopDrainsInFlightRequests(t *testing.T) {
	parallel(t)
	entered, release := make(chan struct{}), make(chan struct{})
	slow := fx.Provide(web.AsRoute(func() web.Route {
		return web.RouteFunc(func(r fiber.Router) {
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
	parallel(t)
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

// While stopping, /readyz says 503 so a load balancer takes the process
// out; it asks on a connection it holds, since a new one is refused.
func TestReadyzIs503WhileDraining(t *testing.T) {
	parallel(t)
	h := newHarness(t, profile{name: "memory"}, withEnv("TANDEM_SHUTDOWN_GRACE", "2s"))
	expect(t, h.get("/readyz", ""), 200, `{"status":"ready"}`)
	// a keep-alive connection held open keeps the server in its grace
	hold := &http.Client{Transport: &http.Transport{}}
	res, err := hold.Get(h.base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body) // read to its end, or the client drops the connection
	res.Body.Close()
	go func() { _ = h.app.Stop(context.Background()) }()
	waitUntilRefused(t, h.base+"/healthz")
	res, err = hold.Get(h.base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	expect(t, response{Status: res.StatusCode, Body: b}, 503, errBody("unavailable", "service unavailable"))
	if !res.Close {
		t.Fatal("a draining answer kept its connection")
	}
}

// A connection opened ahead and never used (a load balancer's, or a
// client's spare) is ended at the grace's end: it does not hold the stop
// until the 30 s read timeout.
func TestAConnectionThatNeverSpokeDoesNotHoldTheStop(t *testing.T) {
	parallel(t)
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

// TestDrainingTwentyTimesUnderLoadLosesNoAnswer stops a server 20 times
// while clients write messages: 8 on keep-alive connections, 4 on a new
// connection per request, one keep-alive client idle through the stop and
// one connection opened ahead that speaks only once the stop has begun.
// Each stop refuses new connections at once while it still answers every
// connection it accepted (idle, silent or busy), each answer with
// Connection: close; it ends once they are gone, before the grace. Not one
// request on an accepted connection fails, fasthttp never panics (that
// would end the test binary), and every message stored was answered 200.
// A new connection may still be reset: one whose handshake the kernel
// completed in the instant before the listener closed, never accepted (a
// debug print of the accepted addresses showed none of them among those).
func TestDrainingTwentyTimesUnderLoadLosesNoAnswer(t *testing.T) {
	parallel(t)
	sqlite := profile{name: "sqlite", sql: sqlstore.SQLite}
	first := newHarness(t, sqlite, withUnboundedWrites()) // a load of messages on the test's fixed clock
	u := first.newUser("drain@example.com")
	if err := first.app.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	answered := map[string]bool{}
	unaccepted := 0 // new connections reset by the listener's close
	var slowest time.Duration
	for i := range 20 {
		h := newHarness(t, sqlite, sharingDB(first), withEnv("TANDEM_SHUTDOWN_GRACE", "3s"), withUnboundedWrites())
		ids, late, took := stopUnderLoad(t, h, u, i)
		for _, id := range ids {
			answered[id] = true
		}
		unaccepted += late
		slowest = max(slowest, took)
		if t.Failed() {
			return
		}
	}
	after := newHarness(t, sqlite, sharingDB(first))
	var stored []string
	if err := after.DB.Select(&stored, "SELECT id FROM messages"); err != nil {
		t.Fatal(err)
	}
	for _, id := range stored {
		if !answered[id] {
			t.Errorf("message %s was stored but never answered", id)
		}
	}
	if len(stored) != len(answered) {
		t.Fatalf("%d messages answered 200, %d stored", len(answered), len(stored))
	}
	t.Logf("%d messages, %d new connections reset by the listener's close, slowest stop %v",
		len(stored), unaccepted, slowest.Round(time.Millisecond))
}

// stopUnderLoad is one stop of TestDrainingTwentyTimesUnderLoadLosesNoAnswer;
// it returns the ids of the messages answered 200, how many new connections
// failed other than by a refused dial, and how long the stop took.
func stopUnderLoad(t *testing.T, h *harness, u user, round int) ([]string, int, time.Duration) {
	addr := strings.TrimPrefix(h.base, "http://")
	var mu sync.Mutex
	var ids []string
	send := func(c *http.Client) (*http.Response, error) {
		body := strings.NewReader(`{"body":"round ` + strconv.Itoa(round) + `"}`)
		r, _ := http.NewRequest("POST", h.base+"/api/messages/send", body)
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Authorization", "Bearer "+u.Token)
		r.Header.Set("X-API-Key", testAPIKey)
		res, err := c.Do(r)
		if err != nil {
			return nil, err
		}
		var m struct{ ID string }
		err = json.NewDecoder(res.Body).Decode(&m)
		res.Body.Close()
		if res.StatusCode != 200 || err != nil {
			return res, fmt.Errorf("status %d, %v", res.StatusCode, err)
		}
		mu.Lock()
		ids = append(ids, m.ID)
		mu.Unlock()
		return res, nil
	}
	// opened ahead, before the clients below: accepted once they are served
	silent, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	idler := &http.Client{Transport: &http.Transport{}, Timeout: 10 * time.Second}
	if _, err := send(idler); err != nil {
		t.Fatal(err)
	}
	var served, late atomic.Int64
	var wg sync.WaitGroup
	for range 8 { // keep-alive: every request on an accepted connection
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &http.Client{Transport: &http.Transport{}, Timeout: 10 * time.Second}
			for {
				res, err := send(c)
				if err != nil {
					t.Errorf("round %d: a keep-alive request failed: %v", round, err)
					return
				}
				served.Add(1)
				if res.Close {
					return
				}
			}
		}()
	}
	for range 4 { // a new connection per request, until one is refused
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
			for {
				res, err := send(c)
				var op *net.OpError
				switch {
				case err == nil:
					served.Add(1)
					continue
				case res != nil:
					t.Errorf("round %d: a request on a new connection got %v", round, err)
					return
				case errors.As(err, &op) && op.Op == "dial":
					return
				}
				// One whose handshake the kernel completed but the server
				// had not yet accepted is reset as the listener closes: the
				// server never read its request.
				late.Add(1)
			}
		}()
	}
	for served.Load() < 40 {
		time.Sleep(time.Millisecond)
	}
	stopped := make(chan error, 1)
	start := time.Now()
	go func() { stopped <- h.app.Stop(context.Background()) }()
	waitUntilRefused(t, h.base+"/healthz")
	// The idle keep-alive connection and the silent one are still answered.
	res, err := send(idler)
	if err != nil {
		t.Fatalf("round %d: the idle keep-alive connection was not answered: %v", round, err)
	}
	if !res.Close {
		t.Fatalf("round %d: a draining answer kept its connection", round)
	}
	select {
	case err := <-stopped:
		t.Fatalf("round %d: the stop returned with a connection still open: %v", round, err)
	default:
	}
	body := `{"body":"silent"}`
	_, _ = fmt.Fprintf(silent, "POST /api/messages/send HTTP/1.1\r\nHost: tandem\r\nAuthorization: Bearer %s\r\n"+
		"X-API-Key: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", u.Token, testAPIKey, len(body), body)
	_ = silent.SetReadDeadline(time.Now().Add(10 * time.Second))
	sr, err := http.ReadResponse(bufio.NewReader(silent), nil)
	if err != nil {
		t.Fatalf("round %d: the connection opened ahead was not answered: %v", round, err)
	}
	var m struct{ ID string }
	if err := json.NewDecoder(sr.Body).Decode(&m); sr.StatusCode != 200 || err != nil || !sr.Close {
		t.Fatalf("round %d: the connection opened ahead got %d (%v), close %v", round, sr.StatusCode, err, sr.Close)
	}
	mu.Lock()
	ids = append(ids, m.ID)
	mu.Unlock()
	wg.Wait()
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if took >= 3*time.Second {
		t.Fatalf("round %d: the stop waited out the grace (%v) though every connection had gone", round, took)
	}
	return ids, int(late.Load()), took
}
