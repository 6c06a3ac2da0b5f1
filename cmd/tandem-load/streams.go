package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// holdStreams opens one live stream per account (the accounts are paired
// two by two), then sends messages from the couples in turn, conc at a
// time, and measures how long each takes from the send to each partner's
// stream. Both ends run in this process: the memory figures include the
// client's 2 goroutines and buffers per stream, so the server alone costs less.
func holdStreams(c *client, accounts []account, conc, messages int) error {
	before := memory()
	sc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: len(accounts) + conc}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l := &latencies{sent: map[string]time.Time{}}
	opened := make(chan error, len(accounts))
	for _, a := range accounts {
		go func() { opened <- l.follow(ctx, sc, c.base, a) }()
	}
	for range accounts {
		if err := <-opened; err != nil {
			return err
		}
	}
	held := memory()
	fmt.Printf("%d streams open: RSS %s -> %s (%.1f KiB per stream, client included), heap in use %s -> %s, goroutines %d\n",
		len(accounts), mib(before.rss), mib(held.rss), float64(held.rss-before.rss)/1024/float64(len(accounts)),
		mib(before.heap), mib(held.heap), runtime.NumGoroutine())

	start := time.Now()
	var wg sync.WaitGroup
	for w := range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < messages; i += conc {
				a := accounts[(2*i)%len(accounts)]
				body := "stream-" + strconv.Itoa(i)
				l.sending(body)
				if _, err := c.call("POST", "/api/messages/send", a.token, map[string]any{"body": body}, nil); err != nil {
					fmt.Fprintln(os.Stderr, "send:", err)
				}
			}
		}()
	}
	wg.Wait()
	l.wait(2*messages, 10*time.Second)
	l.print(messages, time.Since(start))
	return nil
}

type memStats struct{ rss, heap uint64 }

func memory() memStats {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return memStats{rss: rss(), heap: m.HeapInuse}
}

// rss reads VmRSS from /proc (Linux); 0 elsewhere.
func rss() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseUint(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// latencies matches each received message.sent to its send time by body.
type latencies struct {
	mu   sync.Mutex
	sent map[string]time.Time
	got  []time.Duration
}

func (l *latencies) sending(body string) {
	l.mu.Lock()
	l.sent[body] = time.Now()
	l.mu.Unlock()
}

func (l *latencies) received(body string) {
	now := time.Now()
	l.mu.Lock()
	if t, ok := l.sent[body]; ok {
		l.got = append(l.got, now.Sub(t))
	}
	l.mu.Unlock()
}

func (l *latencies) wait(n int, d time.Duration) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		l.mu.Lock()
		done := len(l.got) >= n
		l.mu.Unlock()
		if done {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (l *latencies) print(messages int, took time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	sort.Slice(l.got, func(i, j int) bool { return l.got[i] < l.got[j] })
	fmt.Printf("%d messages in %s: %d of %d deliveries to both partners' streams; send -> stream p50 %s, p90 %s, p99 %s, max %s\n",
		messages, took.Round(time.Millisecond), len(l.got), 2*messages, pct(l.got, 50), pct(l.got, 90), pct(l.got, 99),
		pct(l.got, 100))
}

// follow opens a's stream, reports once it is registered, then records
// every message.sent it carries until ctx ends.
func (l *latencies) follow(ctx context.Context, hc *http.Client, base string, a account) error {
	req, err := http.NewRequestWithContext(ctx, "GET", base+"/api/users/user/"+a.id+"/stream", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	res, err := hc.Do(req)
	if err != nil {
		return err
	}
	if res.StatusCode != 200 {
		res.Body.Close()
		return fmt.Errorf("stream: HTTP %d", res.StatusCode)
	}
	r := bufio.NewReader(res.Body)
	if _, err := r.ReadString('\n'); err != nil { // ": connected"
		return err
	}
	go func() {
		defer res.Body.Close()
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				var m struct{ Body string }
				if json.Unmarshal([]byte(data), &m) == nil && m.Body != "" {
					l.received(m.Body)
				}
			}
		}
	}()
	return nil
}
