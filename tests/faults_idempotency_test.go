package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"tandem/adapters/sqlstore/sqltest"
)

// keyedSender sends messages, each under its own Idempotency-Key (the
// message's body is its key), and retries each key until it is answered
// for good: 200 (run or replayed) or 409 idempotency_answer_not_kept (it
// ran; its answer was lost). Anything but those, a 503 or a 409 in
// progress is reported, and so is a key still unanswered at the deadline.
type keyedSender struct {
	mu       sync.Mutex
	final    map[string]int // key: the status that ended it
	bad      []string       // answers no retry policy expects (500s)
	retries  int
	deadline time.Time
}

func (k *keyedSender) run(h *harness, u user, clients int, stop <-chan struct{}) *sync.WaitGroup {
	k.final = map[string]int{}
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				k.send(h, u, fmt.Sprintf("key-%d-%d", c, i))
			}
		})
	}
	return &wg
}

// send retries key until a final answer, or until the sender's deadline.
func (k *keyedSender) send(h *harness, u user, key string) {
	for {
		// sent past the harness's recorder: which codes a fault's timing
		// reaches (409 not kept, sometimes) must not decide the reached-codes check
		var r response
		res, err := http.DefaultClient.Do(h.request(req{Method: "POST", Path: "/api/messages/send", Token: u.Token,
			Body: map[string]any{"body": key}, Headers: map[string]string{"X-API-Key": testAPIKey, "Idempotency-Key": key}}))
		if err == nil {
			r.Status = res.StatusCode
			r.Body, _ = io.ReadAll(res.Body)
			res.Body.Close()
		}
		var body struct {
			Code string `json:"code"`
		}
		_ = json.Unmarshal(r.Body, &body)
		code := body.Code
		k.mu.Lock()
		switch {
		case r.Status == 200, r.Status == 409 && code == "idempotency_answer_not_kept":
			k.final[key] = r.Status
			k.mu.Unlock()
			return
		case r.Status == 409 && code == "idempotency_in_progress":
			k.retries++
			h.Clock.Advance(time.Second) // the app's clock is the test's: time passes as the client waits
		case err != nil, r.Status == 503:
			k.retries++
		default:
			k.bad = append(k.bad, fmt.Sprintf("%s: %d %s", key, r.Status, r.Body))
		}
		late := time.Now().After(k.deadline)
		if late {
			k.bad = append(k.bad, fmt.Sprintf("%s: no answer for good before the deadline (last %d %s %v)", key, r.Status, code, err))
		}
		k.mu.Unlock()
		if late {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Keyed creates under a database that hangs, retried by their clients
// until answered: every key ends answered, no answer is a 500, and each
// key made exactly one message (rows = keys), whichever side of the hang
// its insert committed on.
func TestFaultKeyedCreatesUnderAHangAreMadeOnce(t *testing.T) {
	parallel(t)
	eachMySQLBehindProxy(t, func(t *testing.T, h *harness, p *faultProxy) {
		u := h.newUser("keys@x.io")
		k := &keyedSender{deadline: time.Now().Add(30 * time.Second)}
		stop := make(chan struct{})
		wg := k.run(h, u, 4, stop)
		time.Sleep(time.Second)
		p.hang()
		time.Sleep(faultCut())
		p.heal()
		time.Sleep(time.Second)
		close(stop)
		wg.Wait()

		if len(k.bad) > 0 {
			t.Fatalf("answers no client expects: %v", k.bad)
		}
		rows := map[string]int{}
		for _, r := range pages(t, 500, func(q string) response { return h.keyed("GET", "/api/messages/list?"+q, u, nil) }) {
			for _, m := range jsonArray(t, r) {
				rows[m["body"].(string)]++
			}
		}
		for key, status := range k.final {
			if rows[key] != 1 {
				t.Errorf("key %s (answered %d) made %d messages", key, status, rows[key])
			}
		}
		for key, n := range rows {
			if _, sent := k.final[key]; !sent || n != 1 {
				t.Errorf("%d messages of key %s, answered: %v", n, key, sent)
			}
		}
		t.Logf("hang %v: %d keys, %d retries, every key one message", faultCut(), len(k.final), k.retries)
	}, withEnv("TANDEM_REQUEST_TIMEOUT", "2s"), withUnboundedWrites())
}

// keyedPost sends one keyed message (its body is its key) to p: the status
// (0: no answer) and the error code.
func keyedPost(p *proc, u user, key string) (int, string) {
	b, _ := json.Marshal(map[string]any{"body": key})
	req, _ := http.NewRequest("POST", p.base+"/api/messages/send", bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+u.Token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", testAPIKey)
	req.Header.Set("Idempotency-Key", key)
	res, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return 0, ""
	}
	defer res.Body.Close()
	var body struct {
		Code string `json:"code"`
	}
	_ = json.NewDecoder(res.Body).Decode(&body)
	return res.StatusCode, body.Code
}

// SIGKILL three times under keyed creates, restarted on the same database,
// then every key sent retried until answered for good: each key made at
// most one message, and each answered key exactly one. A request killed
// after its insert committed left its key written (409
// idempotency_answer_not_kept), never free for a second insert.
func TestFaultKeyedCreatesAcrossCrashesAreMadeOnce(t *testing.T) {
	parallel(t)
	for _, prof := range profiles(t) {
		if prof.sql == "" {
			continue // a memory store does not survive a crash by design
		}
		t.Run(prof.name, func(t *testing.T) {
			parallel(t)
			env := map[string]string{"TANDEM_DB": string(prof.sql) + ":" + sqltest.Migrated(t, prof.sql).DSN}
			p := startTandem(t, env)
			u := p.signUp("keys@x.io")
			var mu sync.Mutex
			var sent []string
			for crash := range 3 {
				var wg sync.WaitGroup
				for w := range 4 {
					wg.Go(func() {
						for i := 0; ; i++ {
							key := fmt.Sprintf("k%d-%d-%d", crash, w, i)
							mu.Lock()
							sent = append(sent, key)
							mu.Unlock()
							if status, _ := keyedPost(p, u, key); status == 0 {
								return // the process died under it
							}
						}
					})
				}
				time.Sleep(700 * time.Millisecond)
				p.kill()
				wg.Wait()
				p = startTandem(t, env)
			}
			final := map[string]int{}
			deadline := time.Now().Add(90 * time.Second) // a key its killed process held is free after the lease (a minute)
			for _, key := range sent {
				for {
					status, code := keyedPost(p, u, key)
					if status == 200 || status == 409 && code == "idempotency_answer_not_kept" {
						final[key] = status
						break
					}
					if status != 409 && status != 503 && status != 0 || time.Now().After(deadline) {
						t.Fatalf("key %s: %d %s", key, status, code)
					}
					time.Sleep(200 * time.Millisecond)
				}
			}
			rows, written := map[string]int{}, 0
			for _, m := range p.messages(u) {
				rows[m["body"].(string)]++
			}
			for key, status := range final {
				if rows[key] != 1 {
					t.Errorf("key %s (answered %d) made %d messages", key, status, rows[key])
				}
				if status == 409 {
					written++
				}
			}
			t.Logf("%s: %d keys over 3 kills, %d written by a killed request (answer lost, not run again), every key one message",
				prof.name, len(sent), written)
		})
	}
}
