package tests

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"tandem/modules/events"
	"tandem/modules/idempotency"
	"tandem/modules/memories"
	"tandem/modules/messages"
	"tandem/modules/moods"
)

// The issue: 300 messages of 4,000 characters in 0.3 s all succeeded, and
// no create but images, devices and feedback had a budget. Messages, events,
// memories and mood check-ins now have a budget per user per minute and per
// UTC day, and new Idempotency-Keys one of their own (core.WriteBudget):
// beyond, 429 rate_limited with Retry-After, and nothing is stored.

// unboundedWrites is a TANDEM_WRITE_BUDGETS no test reaches: for the tests
// whose set-up writes more than a minute's budget at one instant of the
// test clock, and the processes under load.
const unboundedWrites = "messages=100000000/100000000,events=100000000/100000000,memories=100000000/100000000," +
	"moods=100000000/100000000,idempotency_keys=100000000/100000000"

// withUnboundedWrites lifts the write budgets: they are not what the test
// is about.
func withUnboundedWrites() option { return withEnv("TANDEM_WRITE_BUDGETS", unboundedWrites) }

// smallBudgets are the budgets the budget scenarios drive: 3 a minute and 5
// a UTC day of each kind, and keys enough for all of them.
const smallBudgets = "messages=3/5,events=3/5,memories=3/5,moods=3/5,idempotency_keys=100/100"

// errRateLimited is the body of every refusal by a budget.
var errRateLimited = errBody("rate_limited", "too many requests, try again later")

// budgetRoute is one create under a write budget: send makes u's n-th valid
// create (with an Idempotency-Key when key is not ""), and stored lists
// what u reads back of that kind, as the API answers it.
type budgetRoute struct {
	name   string
	send   func(h *harness, u user, n int, key string) response
	stored func(t *testing.T, h *harness, u user) string
}

var budgetRoutes = []budgetRoute{
	{
		name: "messages",
		send: func(h *harness, u user, n int, key string) response {
			hd := map[string]string{"X-API-Key": testAPIKey}
			if key != "" {
				hd["Idempotency-Key"] = key
			}
			return h.do(req{Method: "POST", Path: "/api/messages/send", Token: u.Token, Headers: hd,
				Body: map[string]any{"body": fmt.Sprint("message ", n, " ", strings.Repeat("x", messages.MaxBody-20))}})
		},
		stored: func(t *testing.T, h *harness, u user) string {
			r := h.keyed("GET", "/api/messages/list", u, nil)
			expect(t, r, 200, "")
			return string(r.Body)
		},
	},
	{
		name: "events",
		send: func(h *harness, u user, n int, key string) response {
			return h.do(req{Method: "POST", Path: eventsPath(u), Token: u.Token, Headers: idemHeader(key),
				Body: withAction(map[string]any{"title": fmt.Sprint("event ", n), "startDate": "2025-07-01"})})
		},
		stored: func(t *testing.T, h *harness, u user) string {
			r := h.get(eventsPath(u), u.Token)
			expect(t, r, 200, "")
			return string(r.Body)
		},
	},
	{
		name: "memories",
		send: func(h *harness, u user, n int, key string) response {
			return h.do(req{Method: "POST", Path: memoriesPath(u), Token: u.Token, Headers: idemHeader(key),
				Body: withAction(map[string]any{"title": fmt.Sprint("memory ", n), "date": "2025-06-01"})})
		},
		stored: func(t *testing.T, h *harness, u user) string {
			r := h.get(memoriesPath(u), u.Token)
			expect(t, r, 200, "")
			return string(r.Body)
		},
	},
	{
		// A check-in replaces the day's mood: what a refused one must not
		// change is its note and updatedAt.
		name: "moods",
		send: func(h *harness, u user, n int, key string) response {
			return h.do(req{Method: "POST", Path: moodsPath(u), Token: u.Token, Headers: idemHeader(key),
				Body: map[string]any{"mood": "good", "note": fmt.Sprint("check-in ", n)}})
		},
		stored: func(t *testing.T, h *harness, u user) string {
			r := h.get(moodsPath(u), u.Token)
			expect(t, r, 200, "")
			return string(r.Body)
		},
	},
}

func idemHeader(key string) map[string]string {
	if key == "" {
		return nil
	}
	return map[string]string{"Idempotency-Key": key}
}

// secondsUntil is the Retry-After of a window of length w that holds now.
func secondsUntil(now time.Time, w time.Duration) string {
	return strconv.Itoa(int(now.Truncate(w).Add(w).Sub(now) / time.Second))
}

// TestWriteBudgetsStopAUserAtTheMinuteAndTheDay drives one user of a couple
// through each budget (TANDEM_WRITE_BUDGETS: 3 a minute, 5 a day) on the
// test clock: the fourth create of a minute is 429 rate_limited with the
// error body and a Retry-After to the minute's end, and stores nothing
// (the list reads the same; a keyed refusal is not kept, so its retry runs
// later); the partner and a stranger create meanwhile; the next minute
// passes two more and the sixth waits for the UTC day's end; the next day
// passes again. A keyed create stored before is replayed while the budget
// is spent.
func TestWriteBudgetsStopAUserAtTheMinuteAndTheDay(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob, cid := h.newUser("ann@budget.test"), h.newUser("bob@budget.test"), h.newUser("cid@budget.test")
		h.pair(ann, bob)
		start := h.Clock.Now().Truncate(24 * time.Hour).Add(12*time.Hour + 10*time.Second) // 12:00:10 UTC
		for _, rt := range budgetRoutes {
			t.Run(rt.name, func(t *testing.T) {
				h.Clock.Set(start)
				n := 0
				pass := func(u user, key string) response {
					t.Helper()
					n++
					r := rt.send(h, u, n, key)
					expect(t, r, 200, "")
					return r
				}
				refused := func(u user, key string, window time.Duration) {
					t.Helper()
					before := rt.stored(t, h, u)
					n++
					r := rt.send(h, u, n, key)
					expect(t, r, 429, errRateLimited)
					if got, want := r.Header.Get("Retry-After"), secondsUntil(h.Clock.Now(), window); got != want {
						t.Fatalf("Retry-After %q, want %q", got, want)
					}
					if after := rt.stored(t, h, u); after != before {
						t.Fatalf("a refused create changed what is stored:\nbefore %s\nafter  %s", before, after)
					}
				}
				first := pass(ann, rt.name+"-1")
				pass(ann, "")
				pass(ann, "")
				refused(ann, rt.name+"-4", time.Minute)
				refused(ann, "", time.Minute) // not counted in the day
				// a keyed create stored before is replayed, budget or not
				r := rt.send(h, ann, 1, rt.name+"-1")
				expect(t, r, 200, string(first.Body))
				if r.Header.Get("Idempotent-Replayed") != "true" {
					t.Fatal("not a replay")
				}
				// the partner's and a stranger's budgets are their own
				pass(bob, "")
				pass(cid, "")

				h.Clock.Advance(time.Minute)
				pass(ann, rt.name+"-4") // the refused key was released: its retry runs
				pass(ann, "")
				refused(ann, "", 24*time.Hour)
				pass(bob, "")

				h.Clock.Set(start.Add(12 * time.Hour)) // the next UTC day
				pass(ann, "")
			})
		}
	}, withEnv("TANDEM_WRITE_BUDGETS", smallBudgets))
}

// TestWriteBudgetsStopABurstOfMessages: the burst at the defaults.
// 40 messages of 4,000 characters sent at once: exactly SendsPerMinute pass
// (the counter is one atomic upsert, in the database on SQL), the others
// are 429 and store nothing; the partner still writes.
func TestWriteBudgetsStopABurstOfMessages(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob := h.newUser("ann@burst.test"), h.newUser("bob@burst.test")
		h.pair(ann, bob)
		var rs []req
		for i := range 40 {
			rs = append(rs, POST("/api/messages/send", map[string]any{"body": fmt.Sprint(i, strings.Repeat("♥", messages.MaxBody-2))}).
				by(ann).withKey())
		}
		passed := 0
		for _, r := range h.atOnce(rs...) {
			switch r.Status {
			case 200:
				passed++
			case 429:
				expect(t, r, 429, errRateLimited)
				if ra := r.Header.Get("Retry-After"); !retryAfterSeconds.MatchString(ra) {
					t.Fatalf("Retry-After %q", ra)
				}
			default:
				t.Fatalf("status %d: %s", r.Status, r.Body)
			}
		}
		if passed != messages.SendsPerMinute {
			t.Fatalf("%d of 40 passed, want %d", passed, messages.SendsPerMinute)
		}
		r := h.keyed("GET", "/api/messages/list", bob, nil)
		expect(t, r, 200, "")
		if got := len(jsonArray(t, r)); got != messages.SendsPerMinute {
			t.Fatalf("%d messages stored, want %d", got, messages.SendsPerMinute)
		}
		h.sendMessage(bob, "still here")
	})
}

// TestIdempotencyKeysHaveABudget: new keys beyond the user's budget are 429
// on any keyed route (here the daily question's, which has no budget of
// its own), the request does not run and the key is not kept; a stored key
// is still replayed; requests without a key are not counted.
func TestIdempotencyKeysHaveABudget(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob := h.newUser("ann@keys.test"), h.newUser("bob@keys.test")
		h.pair(ann, bob)
		h.Clock.Set(h.Clock.Now().Truncate(time.Minute).Add(20 * time.Second))
		relationship := func(key, date string) response {
			return h.do(req{Method: "POST", Path: relationshipPath(ann), Token: ann.Token,
				Headers: idemHeader(key), Body: map[string]any{"action": "start", "date": date}})
		}
		// Two keyed answers stored (a 400 is kept too), one request without
		// a key (not counted), then the third key is past the budget.
		bad := relationship("k1", "not-a-date")
		expect(t, bad, 400, "")
		expect(t, relationship("", "not-a-date"), 400, "")
		expect(t, relationship("k2", "2099-01-01"), 400, "")
		r := relationship("k3", "2024-02-14")
		expect(t, r, 429, errRateLimited)
		if got, want := r.Header.Get("Retry-After"), "40"; got != want {
			t.Fatalf("Retry-After %q, want %q", got, want)
		}
		expect(t, h.get(relationshipPath(ann), ann.Token), 404, errBody("not_found", "no relationship")) // it did not run
		replay := relationship("k1", "not-a-date")
		expect(t, replay, 400, string(bad.Body))
		if replay.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatal("not a replay")
		}
		expect(t, h.do(req{Method: "POST", Path: relationshipPath(bob), Token: bob.Token,
			Headers: idemHeader("k3"), Body: map[string]any{"action": "start", "date": "not-a-date"}}), 400, "") // bob's own budget
		h.Clock.Advance(time.Minute)
		expect(t, relationship("k3", "2024-02-14"), 200, "") // never kept: it runs now
	}, withEnv("TANDEM_WRITE_BUDGETS", "idempotency_keys=2/10"))
}

// TestWriteBudgetsAreDocumented: the document states each default budget
// where its create is described (the numbers are the modules' constants).
func TestWriteBudgetsAreDocumented(t *testing.T) {
	parallel(t)
	h := newHarness(t, profile{name: "memory"})
	doc := string(h.get("/openapi.json", "").Body)
	for _, want := range []string{
		fmt.Sprintf("send %d messages a minute and %s a UTC day", messages.SendsPerMinute, thousands(messages.SendsPerDay)),
		fmt.Sprintf("create %d events a minute and %s a UTC day", events.CreatesPerMinute, thousands(events.CreatesPerDay)),
		fmt.Sprintf("create %d memories a minute and %s a UTC day", memories.CreatesPerMinute, thousands(memories.CreatesPerDay)),
		fmt.Sprintf("check in %d times a minute and %s times a UTC day", moods.CheckInsPerMinute, thousands(moods.CheckInsPerDay)),
		fmt.Sprintf("by default %s a minute and %s a UTC day (TANDEM_WRITE_BUDGETS), so at most %s keys",
			thousands(idempotency.NewKeysPerMinute), thousands(idempotency.NewKeysPerDay), thousands(2*idempotency.NewKeysPerDay)),
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("/openapi.json does not say %q", want)
		}
	}
}

// thousands writes n as the document does: 1,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
