package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// soakCmd drives a running `tandem serve` (a data set of `prepare -spread`)
// for a long time at a steady concurrency and prints, every interval, what
// that interval saw: requests a second, p50 and p99 in all and per route,
// the server's own time per route (from its metrics listener), its RSS,
// descriptors and goroutines, and the SQLite file and write-ahead log
// sizes. It answers "does the server hold its throughput as the data
// grows", which a 15-second run cannot (bench/soak.sh).
//
//	tandem-load soak -url http://127.0.0.1:8092 -metrics http://127.0.0.1:9467 \
//	    -sqlite bench/out/soak/bench.db -c 32 -streams 32 -d 30m -every 1m
//
// Each client cycles through the 17-route mix of the load tool plus the home
// screen, and signs in again (argon2id) every -login-every cycles, taking
// the new token. -streams accounts hold a live stream all along.
func soakCmd(args []string) error {
	fs := flag.NewFlagSet("soak", flag.ExitOnError)
	url := fs.String("url", "", "the running server (required)")
	metrics := fs.String("metrics", "", "its metrics listener (TANDEM_METRICS_ADDR as a URL): server time per route, RSS, FDs, goroutines")
	sqlite := fs.String("sqlite", "", "its SQLite database file: the file's and the write-ahead log's sizes")
	users := fs.Int("users", 200, "crowd accounts to sign in")
	conc := fs.Int("c", 32, "concurrent clients")
	streams := fs.Int("streams", 32, "live streams held all along (the first accounts')")
	loginEvery := fs.Int("login-every", 50, "each client signs in again every this many cycles of the mix (0: never)")
	eventDates := fs.String("event-dates", "spread", "the created events' dates: spread (a day further each create, from 2027: "+
		"never in the month the mix reads) or fixed (the mix's 2026-01-10, inside the month it reads: that reply grows with every create, up to its cap of 1,000)")
	dur := fs.Duration("d", 30*time.Minute, "how long")
	every := fs.Duration("every", time.Minute, "the reporting interval")
	fs.Parse(args)
	if *url == "" {
		return fmt.Errorf("soak: -url is required")
	}
	if *eventDates != "spread" && *eventDates != "fixed" {
		return fmt.Errorf("soak: -event-dates is spread or fixed")
	}
	c := &client{base: strings.TrimRight(*url, "/"), http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *conc * 2}}}
	signedIn, err := signInCrowd(c, *users, min(*conc, 8))
	if err != nil {
		return err
	}
	accounts := &crowd{accounts: signedIn}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	live := &liveCount{}
	for i := range min(*streams, len(signedIn)) {
		go live.hold(ctx, c.base, accounts, i)
	}

	s := &soak{c: c, metrics: strings.TrimRight(*metrics, "/"), sqlite: *sqlite, spread: *eventDates == "spread", cur: newInterval()}
	s.prev, _ = s.scrape()
	start := time.Now()
	deadline := start.Add(*dur)
	var wg sync.WaitGroup
	for w := range *conc {
		wg.Go(func() { s.client(w, accounts, *loginEvery, deadline) })
	}
	var rows []soakRow
	t := time.NewTicker(*every)
	for n := 1; ; n++ {
		now := <-t.C
		if now.After(deadline) {
			now = deadline
		}
		row := s.report(n, now.Sub(start), *every, live)
		rows = append(rows, row)
		if !now.Before(deadline) {
			break
		}
	}
	t.Stop()
	wg.Wait()
	cancel()
	summarize(rows)
	return nil
}

// soak is one run's state: the interval being filled and the last scrape.
type soak struct {
	c       *client
	metrics string
	sqlite  string
	spread  bool // created events' dates walk forward (-event-dates)
	mu      sync.Mutex
	cur     *interval
	prev    scrape
}

type interval struct {
	lat   map[string][]time.Duration
	bytes map[string]int64 // reply bodies
	errs  map[string]int
	last  map[string]error
}

func newInterval() *interval {
	return &interval{lat: map[string][]time.Duration{}, bytes: map[string]int64{}, errs: map[string]int{}, last: map[string]error{}}
}

func (s *soak) record(name string, d time.Duration, n int, err error) {
	s.mu.Lock()
	s.cur.lat[name] = append(s.cur.lat[name], d)
	s.cur.bytes[name] += int64(n)
	if err != nil {
		s.cur.errs[name]++
		s.cur.last[name] = err
	}
	s.mu.Unlock()
}

// crowd is the signed-in accounts, whose tokens change as clients sign in
// again: an account keeps accounts.MaxSessions tokens, and a sign-in beyond
// them revokes its oldest, which ends a stream opened with it.
type crowd struct {
	mu       sync.RWMutex
	accounts []account
}

func (c *crowd) get(k int) account {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.accounts[k%len(c.accounts)]
}

func (c *crowd) set(k int, a account) {
	c.mu.Lock()
	c.accounts[k%len(c.accounts)] = a
	c.mu.Unlock()
}

func (c *crowd) len() int { return len(c.accounts) }

// client is one connection's loop: the mix, the home screen, and a sign-in
// every loginEvery cycles.
func (s *soak) client(w int, accounts *crowd, loginEvery int, deadline time.Time) {
	for cycle, k := 0, w; time.Now().Before(deadline); cycle, k = cycle+1, k+accounts.len()/2+1 {
		a := accounts.get(k)
		if loginEvery > 0 && cycle%loginEvery == loginEvery-1 {
			t0 := time.Now()
			b, err := signIn(s.c, a.id)
			s.record("POST login", time.Since(t0), 0, err)
			if err == nil {
				accounts.set(k, b)
				a = b
			}
		}
		mix := append(workload(a), request{"GET home", "GET", "/api/users/user/" + a.id + "/home", nil})
		for _, r := range mix {
			if !time.Now().Before(deadline) {
				return
			}
			if r.name == "POST event" && s.spread {
				day := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, (cycle*accounts.len()+w)%3650)
				r.body = map[string]any{"action": "create", "title": "Load", "startDate": day.Format(time.DateOnly)}
			}
			t0 := time.Now()
			_, b, err := s.c.send(r.method, r.path, a.token, r.body)
			s.record(r.name, time.Since(t0), len(b), err)
		}
	}
}

// soakRow is one interval's figures, kept for the summary.
type soakRow struct {
	n        int
	rps      float64
	p50, p99 time.Duration
	errs     int
	cpuUs    float64 // the server's CPU per request (metrics), 0 unknown
	routes   map[string]routeFigures
	sc       scrape
}

type routeFigures struct {
	rps      float64
	p99      time.Duration
	serverMs float64 // mean server time in the interval (metrics), -1 unknown
	bytes    float64 // mean reply body
}

// report prints interval n and starts the next.
func (s *soak) report(n int, elapsed, every time.Duration, live *liveCount) soakRow {
	s.mu.Lock()
	iv := s.cur
	s.cur = newInterval()
	s.mu.Unlock()
	sc, scErr := s.scrape()
	row := soakRow{n: n, routes: map[string]routeFigures{}, sc: sc}
	secs := every.Seconds()
	if rem := elapsed - time.Duration(n-1)*every; rem < every {
		secs = rem.Seconds()
	}
	var all []time.Duration
	names := make([]string, 0, len(iv.lat))
	for name, l := range iv.lat {
		names = append(names, name)
		all = append(all, l...)
		row.errs += iv.errs[name]
	}
	sort.Strings(names)
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	row.rps, row.p50, row.p99 = float64(len(all))/secs, pct(all, 50), pct(all, 99)
	// The server's CPU per request: what a request costs, whatever else
	// shares the cores (wall times and req/s follow the box's load).
	if d := sc.gauge["process_cpu_seconds_total"] - s.prev.gauge["process_cpu_seconds_total"]; d > 0 && len(all) > 0 {
		row.cpuUs = d / float64(len(all)) * 1e6
	}
	fmt.Printf("SOAK min=%d elapsed_s=%.0f rps=%.0f p50_ms=%.2f p99_ms=%.2f requests=%d errors=%d server_cpu_us_per_req=%.0f"+
		" rss_mb=%.0f fds=%.0f goroutines=%.0f db_mb=%.1f wal_mb=%.1f streams=%d stream_opens=%d stream_events=%d load=%s\n",
		n, elapsed.Seconds(), row.rps, ms(row.p50), ms(row.p99), len(all), row.errs, row.cpuUs,
		sc.gauge["process_resident_memory_bytes"]/(1<<20), sc.gauge["process_open_fds"], sc.gauge["go_goroutines"],
		float64(fileSize(s.sqlite))/(1<<20), float64(fileSize(s.sqlite+"-wal"))/(1<<20),
		live.open.Load(), live.opened.Load(), live.events.Swap(0), loadAvg())
	if scErr != nil && s.metrics != "" {
		fmt.Println("soak: metrics:", scErr)
	}
	for _, name := range names {
		l := iv.lat[name]
		sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
		f := routeFigures{rps: float64(len(l)) / secs, p99: pct(l, 99), serverMs: -1, bytes: float64(iv.bytes[name]) / float64(len(l))}
		if key, ok := routeKey(name); ok {
			dn := sc.count[key] - s.prev.count[key]
			if dn > 0 {
				f.serverMs = (sc.sum[key] - s.prev.sum[key]) / dn * 1000
			}
		}
		row.routes[name] = f
		fmt.Printf("ROUTE min=%d route=%q rps=%.0f p50_ms=%.2f p99_ms=%.2f server_ms=%.2f reply_bytes=%.0f errors=%d\n",
			n, name, f.rps, ms(pct(l, 50)), ms(f.p99), f.serverMs, f.bytes, iv.errs[name])
		if err := iv.last[name]; err != nil {
			fmt.Printf("  %s failed, e.g.: %v\n", name, err)
		}
	}
	s.prev = sc
	return row
}

// summarize prints the first and the last interval side by side.
func summarize(rows []soakRow) {
	if len(rows) == 0 {
		return
	}
	first, last := rows[0], rows[len(rows)-1]
	fmt.Printf("\nfirst vs last interval (%d and %d):\n", first.n, last.n)
	fmt.Printf("%-22s %10s %10s %8s %12s %12s %14s %14s %12s %12s\n", "route", "req/s 1st", "req/s last", "ratio", "p99 1st", "p99 last",
		"server ms 1st", "server ms last", "bytes 1st", "bytes last")
	fmt.Printf("%-22s %10.0f %10.0f %8.2f %12s %12s   server CPU per request %.0f -> %.0f µs\n", "all", first.rps, last.rps,
		last.rps/first.rps, first.p99, last.p99, first.cpuUs, last.cpuUs)
	names := make([]string, 0, len(first.routes))
	for n := range first.routes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		f, l := first.routes[n], last.routes[n]
		fmt.Printf("%-22s %10.0f %10.0f %8.2f %12s %12s %14.2f %14.2f %12.0f %12.0f\n", n, f.rps, l.rps, l.rps/f.rps, f.p99, l.p99,
			f.serverMs, l.serverMs, f.bytes, l.bytes)
	}
	fmt.Printf("SUMMARY first_rps=%.0f last_rps=%.0f ratio=%.3f first_p99_ms=%.2f last_p99_ms=%.2f first_cpu_us=%.0f last_cpu_us=%.0f errors=%d\n",
		first.rps, last.rps, last.rps/first.rps, ms(first.p99), ms(last.p99), first.cpuUs, last.cpuUs, func() int {
			e := 0
			for _, r := range rows {
				e += r.errs
			}
			return e
		}())
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func fileSize(path string) int64 {
	if path == "" {
		return 0
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}

// soakRoutes maps the mix's route names to the server's route patterns
// (the metrics' labels).
var soakRoutes = map[string]string{
	"GET profile":        "GET /api/users/user/:userId",
	"PATCH profile":      "PATCH /api/users/user/:userId",
	"GET pairing":        "GET /api/users/user/:userId/pairing",
	"GET premium status": "GET /api/users/user/:userId/premiums",
	"GET connection":     "GET /api/partnerConnections/get/:userId",
	"GET relationship":   "GET /api/user/:userId/relationship",
	"GET daily question": "GET /api/users/user/:userId/daily-question",
	"GET advice":         "GET /api/users/user/:userId/advice",
	"GET unread":         "GET /api/users/user/:userId/notifications/unread",
	"GET messages":       "GET /api/messages/list",
	"POST message":       "POST /api/messages/send",
	"GET memories":       "GET /api/users/user/:userId/memories",
	"POST memory":        "POST /api/users/user/:userId/memories",
	"GET events range":   "GET /api/users/user/:userId/events/date-range",
	"POST event":         "POST /api/users/user/:userId/events",
	"GET version check":  "GET /api/version-check",
	"GET flags list":     "GET /api/feature-flags",
	"GET home":           "GET /api/users/user/:userId/home",
	"POST login":         "POST /api/auth/login/email",
}

func routeKey(name string) (string, bool) { k, ok := soakRoutes[name]; return k, ok }

// scrape is one read of the metrics listener: the request duration
// histogram's sum and count per "METHOD pattern", and a few gauges.
type scrape struct {
	sum, count map[string]float64
	gauge      map[string]float64
}

func (s *soak) scrape() (scrape, error) {
	out := scrape{sum: map[string]float64{}, count: map[string]float64{}, gauge: map[string]float64{}}
	if s.metrics == "" {
		return out, nil
	}
	res, err := s.c.http.Get(s.metrics + "/metrics")
	if err != nil {
		return out, err
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			continue
		}
		name, labels, _ := strings.Cut(line[:i], "{")
		switch name {
		case "tandem_http_request_duration_seconds_sum", "tandem_http_request_duration_seconds_count":
			key := label(labels, "method") + " " + strings.TrimSuffix(label(labels, "route"), "/")
			if strings.HasSuffix(name, "_sum") {
				out.sum[key] = v
			} else {
				out.count[key] = v
			}
		case "process_resident_memory_bytes", "process_open_fds", "go_goroutines", "process_cpu_seconds_total":
			out.gauge[name] = v
		}
	}
	return out, sc.Err()
}

// label is the value of key in a Prometheus label list `a="x",b="y"}`.
func label(labels, key string) string {
	_, rest, ok := strings.Cut(labels, key+`="`)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, `"`)
	return v
}

// liveCount holds live streams open and counts what they carry.
type liveCount struct {
	open   atomic.Int64
	opened atomic.Int64 // in all, reopenings included
	events atomic.Int64
}

// hold keeps the stream of the k-th account open until ctx ends, opening
// it again with the account's current token when it closes (the sign-ins
// revoke the oldest tokens, and a revoked token ends its stream).
func (l *liveCount) hold(ctx context.Context, base string, accounts *crowd, k int) {
	hc := &http.Client{}
	for ctx.Err() == nil {
		a := accounts.get(k)
		req, err := http.NewRequestWithContext(ctx, "GET", base+"/api/users/user/"+a.id+"/stream", nil)
		if err != nil {
			return
		}
		req.Header.Set("Authorization", "Bearer "+a.token)
		res, err := hc.Do(req)
		if err != nil || res.StatusCode != http.StatusOK {
			if res != nil {
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
			time.Sleep(time.Second)
			continue
		}
		l.open.Add(1)
		l.opened.Add(1)
		r := bufio.NewReader(res.Body)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				break
			}
			if strings.HasPrefix(line, "data: ") {
				l.events.Add(1)
			}
		}
		res.Body.Close()
		l.open.Add(-1)
	}
}
