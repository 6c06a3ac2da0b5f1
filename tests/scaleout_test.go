package tests

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"tandem/adapters/bus/natsbus/natstest"
	"tandem/adapters/imaging/imagingtest"
	"tandem/modules/images"
)

// Several processes, one database, one NATS: three apps share a SQL
// database (a SQLite file, and MySQL when it is configured) and a bus
// prefix, as three `tandem` processes behind a load balancer do.

// natsServers are the NATS servers the multi-process tests run on: an
// in-process one always, and the machine's when TANDEM_TEST_NATS_URL is set
// (CI sets it after making sure the server is up).
func natsServers(t *testing.T) map[string]string {
	out := map[string]string{"in-process": natstest.Start(t).URL()}
	if url := os.Getenv("TANDEM_TEST_NATS_URL"); url != "" {
		out["machine"] = url
	} else if os.Getenv("CI") != "" {
		t.Fatal("TANDEM_TEST_NATS_URL must be set under CI: the multi-process tests run on the machine's NATS")
	}
	return out
}

// processes starts n apps on one database of profile p, sharing one bus.
func processes(t *testing.T, p profile, n int, natsURL string, opts ...option) []*harness {
	prefix := fmt.Sprintf("scale%d_%d", os.Getpid(), natsPrefixes.Add(1))
	first := newHarness(t, p, append([]option{withNATS(natsURL, prefix)}, opts...)...)
	hs := []*harness{first}
	for range n - 1 {
		hs = append(hs, newHarness(t, p, append([]option{withNATS(natsURL, prefix),
			withEnv("TANDEM_DB", first.env["TANDEM_DB"])}, opts...)...))
	}
	return hs
}

// eachScaledProfile runs fn on three processes per SQL profile and NATS server.
func eachScaledProfile(t *testing.T, fn func(t *testing.T, hs []*harness)) {
	eachSharedProfileAndNATS(t, func(t *testing.T, p profile, natsURL string) { fn(t, processes(t, p, 3, natsURL)) })
}

// eachSharedProfileAndNATS runs fn, in parallel, per SQL profile (one
// several processes can share) and NATS server.
func eachSharedProfileAndNATS(t *testing.T, fn func(t *testing.T, p profile, natsURL string)) {
	for server, url := range natsServers(t) {
		for _, p := range profiles(t) {
			if p.sql == "" {
				continue // a memory store is one process's own
			}
			t.Run(server+"/"+p.name, func(t *testing.T) {
				parallel(t)
				fn(t, p, url)
			})
		}
	}
}

// soon401 waits, at most a second, for h to refuse token on path.
func soon401(t *testing.T, h *harness, path, token string) {
	t.Helper()
	for deadline := time.Now().Add(time.Second); ; time.Sleep(5 * time.Millisecond) {
		r := h.get(path, token)
		if r.Status == 401 || time.Now().After(deadline) {
			expect(t, r, 401, "")
			return
		}
	}
}

// A logout on one process is a 401 on the others within moments, although
// their token caches (5 s) had just resolved the token: the logout answers
// once NATS has the revocation, and each process evicts as it arrives, so
// the first request elsewhere may still precede the eviction by a few
// milliseconds (a CI run once saw it). Within a second, far under the 5 s.
func TestScaleOutRevocationIsImmediate(t *testing.T) {
	parallel(t)
	eachScaledProfile(t, func(t *testing.T, hs []*harness) {
		a, b, c := hs[0], hs[1], hs[2]
		ann := a.newUser("ann@x.io")
		_, second := a.login("ann@x.io")
		profile := "/api/users/user/" + ann.ID
		for _, h := range hs {
			expect(t, h.get(profile, ann.Token), 200, "")
			expect(t, h.get(profile, second), 200, "")
		}
		expect(t, a.post("/api/auth/logout", ann.Token, map[string]any{}), 200, "")
		soon401(t, b, profile, ann.Token)
		soon401(t, c, profile, ann.Token)
		expect(t, c.get(profile, second), 200, "") // only that token

		expect(t, c.post("/api/auth/logout", second, map[string]any{"all": true}), 200, "")
		for _, h := range hs {
			soon401(t, h, profile, second)
		}
	})
}

// A message sent through one process reaches both partners' streams held
// by two others; a logout on a third ends the stream on another.
func TestScaleOutStreams(t *testing.T) {
	parallel(t)
	eachScaledProfile(t, func(t *testing.T, hs []*harness) {
		a, b, c := hs[0], hs[1], hs[2]
		ann, bob := a.newUser("ann@x.io"), a.newUser("bob@x.io")
		a.pair(ann, bob)
		annS, bobS := b.openStream(ann, ""), c.openStream(bob, "")

		at := a.Clock.Now().UnixMilli()
		id := a.sendMessage(ann, "across processes")
		want := messageJSON(id, "across processes", ann, at)
		first := annS.expectEvent(time.Second, "message.sent", want)
		bobS.expectEvent(time.Second, "message.sent", want)

		// ann comes back on c with the id of an event b wrote: c resumes
		// from the feed, which every process reads
		annS.cancel()
		at = a.Clock.Now().UnixMilli()
		next := a.sendMessage(bob, "while you were away")
		bobS.expectEvent(time.Second, "message.sent", messageJSON(next, "while you were away", bob, at))
		again := c.openStream(ann, first.ID)
		again.expectChange(time.Second, messageChange(next, "while you were away", bob, at))

		expect(t, a.post("/api/auth/logout", bob.Token, map[string]any{}), 200, "")
		bobS.ends(time.Second, "revoked")
	})
}

// A bus outage that loses the messages between two processes: a logout on
// the other process during it still ends the stream here, and the live
// events it published meanwhile are not silently missing: the stream
// writes their changes from the feed (no reset: the feed holds them) and
// then carries events again. Process 1
// reaches NATS through a proxy held cut until process 2 has reconnected and
// flushed what it buffered, so those messages reach the server while
// process 1 is not subscribed: the worst order, made certain. The recheck
// interval is long, so the stream can only end by the recheck made on
// reconnecting.
func TestScaleOutStreamsAfterABusOutage(t *testing.T) {
	parallel(t)
	for _, p := range profiles(t) {
		if p.sql == "" {
			continue // a memory store is one process's own
		}
		t.Run(p.name, func(t *testing.T) {
			parallel(t)
			srv := natstest.Start(t)
			port := srv.Port()
			proxy := newFaultProxy(t, fmt.Sprintf("127.0.0.1:%d", port))
			prefix := fmt.Sprintf("gap%d_%d", os.Getpid(), natsPrefixes.Add(1))
			recheck := withEnv("TANDEM_STREAM_RECHECK", "10m")
			one := newHarness(t, p, withNATS("nats://"+proxy.Addr(), prefix), recheck)
			two := newHarness(t, p, withNATS(srv.URL(), prefix), withEnv("TANDEM_DB", one.env["TANDEM_DB"]), recheck)

			ann, bob := one.newUser("ann@x.io"), one.newUser("bob@x.io")
			one.pair(ann, bob)
			annS, bobS := one.openStream(ann, ""), one.openStream(bob, "")
			at := two.Clock.Now().UnixMilli()
			id := two.sendMessage(ann, "before")
			bobS.expectEvent(time.Second, "message.sent", messageJSON(id, "before", ann, at))

			proxy.cut()
			srv.Shutdown()
			during, duringAt := two.sendMessage(ann, "during the outage"), two.Clock.Now().UnixMilli()-1
			expect(t, two.post("/api/auth/logout", ann.Token, map[string]any{}), 200, "")
			expect(t, two.get("/api/users/user/"+ann.ID, ann.Token), 401, "")

			srv = natstest.StartAt(t, port)
			waitForMessages(t, srv) // process 2 is back and sent what it held
			proxy.heal()
			healed := time.Now()

			annS.ends(5*time.Second, "revoked")
			bobS.expectChange(5*time.Second, messageChange(during, "during the outage", ann, duringAt))
			t.Logf("the revoked stream ended and the other caught up %v after process 1 could reconnect", time.Since(healed))
			at = two.Clock.Now().UnixMilli()
			id = two.sendMessage(bob, "after")
			bobS.expectEvent(2*time.Second, "message.sent", messageJSON(id, "after", bob, at))
			expect(t, one.get("/api/users/user/"+ann.ID, ann.Token), 401, "")
		})
	}
}

// waitForMessages waits until srv has had messages and none for a while.
func waitForMessages(t *testing.T, srv *natstest.Server) {
	t.Helper()
	deadline, last, since := time.Now().Add(10*time.Second), int64(0), time.Now()
	for time.Now().Before(deadline) {
		v, err := srv.Varz(nil)
		if err != nil {
			t.Fatal(err)
		}
		if v.InMsgs != last {
			last, since = v.InMsgs, time.Now()
		}
		if last > 0 && time.Since(since) > 100*time.Millisecond {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no messages reached the restarted NATS server")
}

// Three processes on one database pair correctly under concurrency: the
// two partners' submit-code on two processes at the same instant make one
// partnership; two users linking one connection code through two processes
// at once, one wins and the other is already_paired; the third process
// sees the outcome.
func TestScaleOutConcurrentPairing(t *testing.T) {
	eachScaledProfile(t, func(t *testing.T, hs []*harness) {
		one, two, three := hs[0], hs[1], hs[2]
		a, b, c := one.newUser("a@x.io"), one.newUser("b@x.io"), one.newUser("c@x.io")
		for round := range 10 {
			ca, cb := one.generateCode(a), two.generateCode(b)
			rs := atOnceAcross(t, []*harness{one, two},
				req{Method: "POST", Path: pairingPath(a), Token: a.Token, Body: map[string]any{"action": "submit-code", "targetCode": cb}},
				req{Method: "POST", Path: pairingPath(b), Token: b.Token, Body: map[string]any{"action": "submit-code", "targetCode": ca}},
			)
			connected := 0
			for _, r := range rs {
				expect(t, r, 200, "")
				if r.JSON(t)["state"] == "connected" {
					connected++
				}
			}
			if connected != 1 {
				t.Fatalf("round %d: %d of the two submits connected: %s / %s", round, connected, rs[0].Body, rs[1].Body)
			}
			expect(t, three.pairingStatus(a), 200, statusJSON("connected", "", "", b.ID, "", "", false))
			expect(t, three.pairingStatus(b), 200, statusJSON("connected", "", "", a.ID, "", "", false))
			three.wantRows(t, round, 1)
			expect(t, three.post(pairingPath(a)+"/unpair", a.Token, nil), 200, "")
		}

		linkRace(t, one, []*harness{two, three}, b, c, 10)
	})
}

// Three processes share one bucket as they share the database: a photo
// uploaded through one is served by the others, its thumbnail made by a
// third is found by all, and a delete through any removes the files.
func TestScaleOutSharesTheBucket(t *testing.T) {
	servers := s3Servers(t)
	srv := servers[len(servers)-1] // the real server under CI, else the fake
	url := natsServers(t)["in-process"]
	for _, p := range profiles(t) {
		if p.sql == "" {
			continue
		}
		t.Run(srv.name+"/"+p.name, func(t *testing.T) {
			parallel(t)
			bucket := srv.make(t)
			hs := processes(t, p, 3, url, withEnv("TANDEM_BLOBS", srv.blobs(bucket)), withEnv("TANDEM_IMAGES_RATE_LIMIT", "1000"))
			one, two, three := hs[0], hs[1], hs[2]
			u := one.newUser("a@x.io")
			photo := imagingtest.Photo(800, 600)
			up := one.mustUpload(u, filePart("big.jpg", "image/jpeg", photo)).Files[0].Data
			for _, h := range []*harness{two, three} {
				r := h.fetch(up.URL)
				res, err := http.Get(r.Header.Get("Location"))
				if r.Status != 302 || err != nil {
					t.Fatalf("%d %v", r.Status, err)
				}
				got, _ := io.ReadAll(res.Body)
				res.Body.Close()
				samePicture(t, got, photo, 40)
			}
			thumbKey := images.ThumbKey(up.Key, 320)
			if r := three.fetch(up.URL + "?w=320"); r.Status != 302 || !srv.has(t, bucket, thumbKey) {
				t.Fatalf("thumbnail through the third: %d", r.Status)
			}
			if r := one.fetch(up.URL + "?w=320"); r.Status != 302 || !strings.Contains(r.Header.Get("Location"), thumbKey) {
				t.Fatalf("the thumbnail through the first: %d %q", r.Status, r.Header.Get("Location"))
			}
			recs, _ := two.listed(u, "")
			for _, id := range ids(recs) {
				expect(t, two.do(req{Method: "DELETE", Path: imagesPath(u) + "/" + id, Token: u.Token}), 200, "")
			}
			for _, key := range []string{up.Key, thumbKey} {
				if srv.has(t, bucket, key) {
					t.Fatalf("%s is still in the bucket", key)
				}
			}
			expect(t, three.fetch(up.URL), 404, errBody("not_found", "file not found"))
		})
	}
}
