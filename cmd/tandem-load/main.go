// Command tandem-load is the project's load tool. It assembles the real app
// in-process on the chosen store (mail goes to memory so it can read the
// verification codes), signs up and pairs users over loopback HTTP, then
// runs a mixed workload from concurrent clients and prints throughput and
// latency percentiles per route.
//
//	go run ./cmd/tandem-load -db sqlite:/tmp/load.db -users 200 -c 16 -d 15s
//
// `tandem-load prepare` and `tandem-load serve` build the data set of the
// wrk benchmarks instead (fixture.go, bench/).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"go.uber.org/fx"

	"tandem/adapters/httpapi"
	"tandem/adapters/mail/memmail"
	"tandem/bootstrap"
)

const apiKey = "load-key"

func main() {
	if len(os.Args) > 1 && (os.Args[1] == "prepare" || os.Args[1] == "serve" || os.Args[1] == "jobs" || os.Args[1] == "soak") {
		cmd := map[string]func([]string) error{"prepare": prepareCmd, "serve": serveCmd, "jobs": jobsCmd, "soak": soakCmd}[os.Args[1]]
		if err := cmd(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "tandem-load:", err)
			os.Exit(1)
		}
		return
	}
	db := flag.String("db", "memory", "TANDEM_DB of the app under load")
	users := flag.Int("users", 100, "accounts to create (paired two by two)")
	conc := flag.Int("c", 8, "concurrent clients")
	dur := flag.Duration("d", 10*time.Second, "measured duration")
	streams := flag.Int("streams", 0, "instead of the workload: hold this many live streams (one per user, paired) and measure message delivery")
	messages := flag.Int("messages", 1000, "with -streams: messages to send")
	bus := flag.String("bus", "local", "TANDEM_BUS of the app under load")
	url := flag.String("url", "", "instead of an app in-process: drive the running server at this URL as the crowd of "+
		"`prepare -spread` (signs in crowd couples with a relationship; the server needs TANDEM_API_KEYS="+apiKey+
		", a high TANDEM_RATE_LIMIT_IP and TANDEM_WRITE_BUDGETS, and the memory limit of bench/scale.sh)")
	flag.Parse()
	if *url != "" {
		if err := runRemote(*url, *users, *conc, *dur); err != nil {
			fmt.Fprintln(os.Stderr, "tandem-load:", err)
			os.Exit(1)
		}
		return
	}
	if *streams > 0 {
		*users = *streams
	}
	if err := run(*db, *bus, *users, *conc, *dur, *streams, *messages); err != nil {
		fmt.Fprintln(os.Stderr, "tandem-load:", err)
		os.Exit(1)
	}
}

// unboundedWrites is a TANDEM_WRITE_BUDGETS no workload reaches.
const unboundedWrites = "messages=100000000/100000000,events=100000000/100000000,memories=100000000/100000000,moods=100000000/100000000,idempotency_keys=100000000/100000000"

func run(db, bus string, users, conc int, dur time.Duration, streams, messages int) error {
	env := map[string]string{"TANDEM_ADDR": "127.0.0.1:0", "TANDEM_METRICS_ADDR": "", "TANDEM_DB": db, "TANDEM_ENV": "development", "TANDEM_BUS": bus, "TANDEM_MAIL": "memory",
		"TANDEM_BLOBS": "memory", "TANDEM_PUSH": "memory", "TANDEM_LOG_LEVEL": "error",
		"TANDEM_API_KEYS": apiKey, "TANDEM_RATE_LIMIT_IP": "100000000",
		"TANDEM_PAIRING_FAILS_USER": "100000000", "TANDEM_PAIRING_FAILS_IP": "100000000",
		// The workload writes as fast as it can: the per-user budgets are not what it measures.
		"TANDEM_WRITE_BUDGETS": unboundedWrites,
		// The workload writes memories all along: limits are not what it measures.
		"TANDEM_LIMITS_FREE": `{"projects":3,"storage":"100GB","imagesPerUpload":4,"memories":100000000}`}
	cfg, err := bootstrap.Load(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		return err
	}
	var srv *httpapi.Server
	var outbox *memmail.Outbox
	app := bootstrap.New(cfg, fx.NopLogger, fx.Populate(&srv, &outbox))
	ctx := context.Background()
	if err := app.Start(ctx); err != nil {
		return err
	}
	defer app.Stop(ctx)
	c := &client{base: "http://" + srv.Addr(), http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc * 2}}}

	start := time.Now()
	accounts, err := setUp(c, outbox, users, conc)
	if err != nil {
		return err
	}
	fmt.Printf("set-up: %d users signed up, verified, paired and their relationships started in %s (store %s)\n", len(accounts), time.Since(start).Round(time.Millisecond), db)
	if streams > 0 {
		return holdStreams(c, accounts, conc, messages)
	}
	stats := drive(c, accounts, conc, dur)
	stats.print(dur)
	return nil
}

type account struct{ id, token string }

// runRemote runs the workload against a served data set of `prepare
// -spread`: n crowd accounts sign in with crowdPassword (the couples whose
// index is 0-6 mod 10 have a relationship, which the workload reads).
func runRemote(base string, n, conc int, dur time.Duration) error {
	c := &client{base: strings.TrimRight(base, "/"), http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc * 2}}}
	out, err := signInCrowd(c, n, conc)
	if err != nil {
		return err
	}
	drive(c, out, conc, dur).print(dur)
	return nil
}

// signInCrowd signs in n crowd accounts of `prepare -spread`, conc at a time.
func signInCrowd(c *client, n, conc int) ([]account, error) {
	start := time.Now()
	out := make([]account, n)
	errs := make(chan error, conc)
	var wg sync.WaitGroup
	for w := range conc {
		wg.Go(func() {
			for k := w; k < n; k += conc {
				a, err := signIn(c, crowdID(k))
				if err != nil {
					errs <- err
					return
				}
				out[k] = a
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	fmt.Printf("set-up: %d crowd users signed in in %s (%s)\n", n, time.Since(start).Round(time.Millisecond), c.base)
	return out, nil
}

// crowdID is the k-th crowd account with a relationship: the accounts of
// the couples whose index is 0-6 mod 10, both partners in turn.
func crowdID(k int) string {
	couple, side := k/2, "a"
	if k%2 == 1 {
		side = "b"
	}
	return fmt.Sprintf("crowd-%d-%s", couple/7*10+couple%7, side)
}

// signIn signs a crowd account in with its password, waiting while every
// hashing slot is busy (503).
func signIn(c *client, id string) (account, error) {
	var v struct{ Token string }
	for try := 0; ; try++ {
		status, err := c.call("POST", "/api/auth/login/email", "", map[string]any{"email": id + "@bench.tandem",
			"password": crowdPassword}, &v)
		if status == http.StatusServiceUnavailable && try < 50 {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		if err != nil {
			return account{}, err
		}
		return account{id, v.Token}, nil
	}
}

func setUp(c *client, outbox *memmail.Outbox, n, conc int) ([]account, error) {
	out := make([]account, n)
	run := time.Now().UnixNano()
	errs := make(chan error, conc)
	var wg sync.WaitGroup
	for w := range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += conc {
				a, err := signUp(c, outbox, fmt.Sprintf("load-%d-%d@example.com", run, i))
				if err != nil {
					errs <- err
					return
				}
				out[i] = a
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	for i := 0; i+1 < len(out); i += 2 {
		a, b := out[i], out[i+1]
		code := "load-" + a.id
		if _, err := c.call("POST", "/api/partnerConnections/create", a.token, map[string]any{"userId": a.id, "connectionCode": code}, nil); err != nil {
			return nil, err
		}
		if _, err := c.call("POST", "/api/partnerConnections/link", b.token, map[string]any{"userId": b.id, "connectionCode": code}, nil); err != nil {
			return nil, err
		}
		if _, err := c.call("POST", "/api/user/"+a.id+"/relationship", a.token, map[string]any{"action": "start", "date": "2025-02-14"}, nil); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func signUp(c *client, outbox *memmail.Outbox, email string) (account, error) {
	var su struct{ UserID string }
	if _, err := c.call("POST", "/api/auth/signup/email", "", map[string]any{"email": email, "password": "load-password"}, &su); err != nil {
		return account{}, err
	}
	var v struct{ Token string }
	if _, err := c.call("POST", "/api/auth/signup/email", "", map[string]any{"userId": su.UserID, "verificationCode": outbox.Code(email)}, &v); err != nil {
		return account{}, err
	}
	return account{su.UserID, v.Token}, nil
}

// workload is the mix each client cycles through: mostly reads, as an app
// does, over every module a home screen touches, plus the writes of a day.
func workload(a account) []request {
	u := "/api/users/user/" + a.id
	return []request{
		{"GET profile", "GET", u, nil},
		{"GET pairing", "GET", u + "/pairing", nil},
		{"GET premium status", "GET", u + "/premiums?action=status", nil},
		{"GET connection", "GET", "/api/partnerConnections/get/" + a.id, nil},
		{"GET relationship", "GET", "/api/user/" + a.id + "/relationship", nil},
		{"GET daily question", "GET", u + "/daily-question", nil},
		{"GET advice", "GET", u + "/advice", nil},
		{"GET unread", "GET", u + "/notifications/unread", nil},
		{"GET messages", "GET", "/api/messages/list?limit=20", nil},
		{"POST message", "POST", "/api/messages/send", map[string]any{"body": "load message"}},
		{"GET memories", "GET", u + "/memories?limit=20", nil},
		{"POST memory", "POST", u + "/memories", map[string]any{"action": "create", "title": "Load",
			"description": "a day", "date": "2026-01-02", "images": []string{}}},
		{"GET events range", "GET", u + "/events/date-range?startDate=2026-01-01&endDate=2026-01-31", nil},
		{"POST event", "POST", u + "/events", map[string]any{"action": "create", "title": "Load",
			"startDate": "2026-01-10"}},
		{"GET version check", "GET", "/api/version-check?platform=ios&version=1.0.0", nil},
		{"GET flags list", "GET", "/api/feature-flags?action=list&platform=ios&userId=" + a.id, nil},
		{"PATCH profile", "PATCH", u, map[string]any{"displayName": "Load"}},
	}
}

type request struct {
	name, method, path string
	body               any
}

func drive(c *client, accounts []account, conc int, dur time.Duration) *stats {
	s := &stats{lat: map[string][]time.Duration{}, errs: map[string]int{}, last: map[string]error{}}
	deadline := time.Now().Add(dur)
	var wg sync.WaitGroup
	for w := 0; w < conc; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; time.Now().Before(deadline); i += conc {
				a := accounts[i%len(accounts)]
				for _, r := range workload(a) {
					t0 := time.Now()
					_, err := c.call(r.method, r.path, a.token, r.body, nil)
					s.record(r.name, time.Since(t0), err)
				}
			}
		}(w)
	}
	wg.Wait()
	return s
}

type stats struct {
	mu   sync.Mutex
	lat  map[string][]time.Duration
	errs map[string]int
	last map[string]error // one failure per route, to say why
}

func (s *stats) record(name string, d time.Duration, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lat[name] = append(s.lat[name], d)
	if err != nil {
		s.errs[name]++
		s.last[name] = err
	}
}

func (s *stats) print(dur time.Duration) {
	names := make([]string, 0, len(s.lat))
	total := 0
	for n, l := range s.lat {
		names = append(names, n)
		total += len(l)
	}
	sort.Strings(names)
	fmt.Printf("%-22s %9s %8s %9s %9s %9s %7s\n", "route", "requests", "req/s", "p50", "p90", "p99", "errors")
	for _, n := range names {
		l := s.lat[n]
		sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
		fmt.Printf("%-22s %9d %8.0f %9s %9s %9s %7d\n", n, len(l), float64(len(l))/dur.Seconds(),
			pct(l, 50), pct(l, 90), pct(l, 99), s.errs[n])
	}
	var all []time.Duration
	errs := 0
	for _, n := range names {
		all = append(all, s.lat[n]...)
		errs += s.errs[n]
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	fmt.Printf("%-22s %9d %8.0f %9s %9s %9s %7d\n", "all", total, float64(total)/dur.Seconds(), pct(all, 50), pct(all, 90), pct(all, 99), errs)
	// One line for scripts (bench/scale.sh).
	fmt.Printf("MIX rps=%.0f p50_ms=%.2f p99_ms=%.2f requests=%d errors=%d\n", float64(total)/dur.Seconds(),
		float64(pct(all, 50).Microseconds())/1000, float64(pct(all, 99).Microseconds())/1000, total, errs)
	for _, n := range names {
		if err := s.last[n]; err != nil {
			fmt.Printf("%s failed, e.g.: %v\n", n, err)
		}
	}
}

func pct(l []time.Duration, p int) time.Duration {
	if len(l) == 0 {
		return 0
	}
	return l[(len(l)-1)*p/100].Round(time.Microsecond)
}

type client struct {
	base string
	http *http.Client
}

func (c *client) call(method, path, token string, body, out any) (int, error) {
	status, b, err := c.send(method, path, token, body)
	if err != nil || out == nil {
		return status, err
	}
	return status, json.Unmarshal(b, out)
}

// send makes one request and returns the status and the reply's body; a
// status of 400 or more is an error holding the body.
func (c *client) send(method, path, token string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if strings.HasPrefix(path, "/api/partnerConnections") || strings.HasPrefix(path, "/api/messages") {
		req.Header.Set("X-API-Key", apiKey)
	}
	res, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 400 {
		return res.StatusCode, b, fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, b)
	}
	return res.StatusCode, b, nil
}
