// This file holds how a stream ends or lives on: every way its token dies
// (revoked, expired, gone from the store), a NATS outage it survives, and
// the per-process cap (503, and /readyz says so).

package tests

import (
	"context"
	"strings"
	"testing"
	"time"

	"tandem/adapters/bus/natsbus/natstest"
	"tandem/modules/accounts"
)

// Every way a token dies ends the streams opened with it, and only those.
func TestStreamEndsWhenItsTokenIsRevoked(t *testing.T) {
	parallel(t)
	cases := map[string]func(h *harness, u user, other string){
		"logout": func(h *harness, u user, _ string) {
			expect(h.t, h.post("/api/auth/logout", u.Token, map[string]any{}), 200, "")
		},
		"logout of every session": func(h *harness, u user, other string) {
			expect(h.t, h.post("/api/auth/logout", other, map[string]any{"all": true}), 200, "")
		},
		"the session deleted from another": func(h *harness, u user, other string) {
			r := h.get("/api/users/user/"+u.ID+"/sessions", other)
			for _, s := range r.JSON(h.t)["sessions"].([]any) {
				if m := s.(map[string]any); m["current"] == false {
					expect(h.t, h.do(req{Method: "DELETE", Path: "/api/users/user/" + u.ID + "/sessions/" + m["id"].(string), Token: other}), 200, "")
				}
			}
		},
		"password reset": func(h *harness, u user, _ string) {
			expect(h.t, h.post("/api/auth/reset", "", map[string]any{"email": "ann@x.io"}), 200, "")
			v := h.post("/api/auth/reset", "", map[string]any{"userId": u.ID, "code": h.Mail.Code("ann@x.io")})
			expect(h.t, v, 200, "")
			expect(h.t, h.post("/api/auth/reset", "", map[string]any{"userId": u.ID, "newPassword": "brand-new-pass",
				"resetToken": v.JSON(h.t)["resetToken"]}), 200, "")
		},
		"account deleted": func(h *harness, u user, _ string) {
			expect(h.t, h.do(req{Method: "DELETE", Path: "/api/users/user/" + u.ID, Token: u.Token}), 200, "")
		},
	}
	for name, revoke := range cases {
		t.Run(name, func(t *testing.T) {
			eachProfileAndBus(t, func(t *testing.T, h *harness) {
				ann := h.newUser("ann@x.io")
				_, other := h.login("ann@x.io")
				bob := h.newUser("bob@x.io")
				s, kept, bobS := h.openStream(ann, ""), h.openStream(user{ID: ann.ID, Token: other}, ""), h.openStream(bob, "")
				if name == "logout of every session" || name == "account deleted" || name == "password reset" {
					kept = nil // every session of ann dies
				}
				revoke(h, ann, other)
				s.ends(time.Second, "revoked")
				if kept != nil {
					kept.none(100 * time.Millisecond)
				}
				bobS.none(50 * time.Millisecond)
				expect(t, h.get(streamPath(ann), ann.Token), 401, "")
			})
		})
	}
}

// A stream ends when its token expires, by the server's clock: the token
// was checked only at open, and the stream must not outlive it. Another
// session's stream goes on.
func TestStreamEndsWhenItsTokenExpires(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann := h.newUser("ann@x.io")
		// ann's token has 150 ms left; a token from a login now has the full TTL
		h.Clock.Advance(90*24*time.Hour - 150*time.Millisecond)
		_, fresh := h.login("ann@x.io")
		s, kept := h.openStream(ann, ""), h.openStream(user{ID: ann.ID, Token: fresh}, "")
		s.ends(2*time.Second, "expired")
		kept.none(100 * time.Millisecond)
		h.Clock.Advance(time.Second)
		expect(t, h.get(streamPath(ann), ann.Token), 401, "")
		expect(t, h.get("/api/users/user/"+ann.ID, fresh), 200, "")
	})
}

// A token that leaves the store with no word on the bus (a revocation the
// bus lost, a row deleted by hand) ends its stream at the next recheck
// (TANDEM_STREAM_RECHECK) and is forgotten by the token cache; the user's
// other session and its stream go on.
func TestStreamEndsWhenItsTokenLeavesTheStore(t *testing.T) {
	parallel(t)
	for _, p := range profiles(t) {
		if p.sql == "" {
			continue // the memory store has no rows to delete by hand
		}
		t.Run(p.name, func(t *testing.T) {
			parallel(t)
			h := newHarness(t, p, withEnv("TANDEM_STREAM_RECHECK", "100ms"))
			ann := h.newUser("ann@x.io")
			_, other := h.login("ann@x.io")
			s, kept := h.openStream(ann, ""), h.openStream(user{ID: ann.ID, Token: other}, "")
			expect(t, h.get("/api/users/user/"+ann.ID, ann.Token), 200, "") // cached now
			res, err := h.DB.ExecContext(context.Background(), "DELETE FROM auth_tokens WHERE token_hash = ?", accounts.HashToken(ann.Token))
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := res.RowsAffected(); n != 1 {
				t.Fatalf("deleted %d tokens", n)
			}
			s.ends(time.Second, "revoked")
			expect(t, h.get("/api/users/user/"+ann.ID, ann.Token), 401, "")
			kept.none(300 * time.Millisecond)
			expect(t, h.get("/api/users/user/"+ann.ID, other), 200, "")
		})
	}
}

// A NATS outage fails no request: while the server is down, messages are
// sent and tokens revoked as usual (the revoking process evicts its own
// cache and streams at once); once a server is back on the address, the
// processes reconnect by themselves and the streams carry events again.
func TestStreamSurvivesANATSOutage(t *testing.T) {
	parallel(t)
	for _, p := range profiles(t) {
		t.Run(p.name, func(t *testing.T) {
			parallel(t)
			srv := natstest.Start(t)
			natsOutage(t, newHarness(t, p, withNATS(srv.URL())), srv)
		})
	}
}

func natsOutage(t *testing.T, h *harness, srv *natstest.Server) {
	port := srv.Port()
	ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
	_, spare := h.login("ann@x.io")
	h.pair(ann, bob)
	bobS, spareS := h.openStream(bob, ""), h.openStream(user{ID: ann.ID, Token: spare}, "")
	srv.Shutdown()

	start := time.Now()
	h.sendMessage(ann, "while NATS is down")
	expect(t, h.post("/api/auth/logout", spare, map[string]any{}), 200, "")
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("requests during the outage took %v", took)
	}
	spareS.ends(time.Second, "revoked")
	expect(t, h.get("/api/users/user/"+ann.ID, spare), 401, "")

	natstest.StartAt(t, port)
	deadline := time.Now().Add(10 * time.Second)
	for {
		h.sendMessage(ann, "after")
		e := bobS.next(10 * time.Second)
		if strings.Contains(e.Data, `"body":"after"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no live event after NATS came back")
		}
	}
}

// A process holds at most TANDEM_STREAMS_MAX streams (fewer when its file
// descriptor limit leaves less): one more is 503 with Retry-After, /readyz
// says the process is full while every other route answers, and a stream
// that ends makes room again.
func TestStreamCapIs503AndReadyzSaysSo(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		ann, bob := h.newUser("ann@x.io"), h.newUser("bob@x.io")
		expect(t, h.get("/readyz", ""), 200, `{"status":"ready"}`)
		s := h.openStream(ann, "")
		r := h.get(streamPath(bob), bob.Token)
		expect(t, r, 503, errBody("unavailable", "too many open streams; retry later"))
		if r.Header.Get("Retry-After") != "5" {
			t.Fatalf("Retry-After %q", r.Header.Get("Retry-After"))
		}
		expect(t, h.get("/readyz", ""), 200, `{"status":"degraded","code":"too_many_streams",
			"message":"this process holds all the live streams it may (1); new ones are refused"}`)
		expect(t, h.get("/api/users/user/"+bob.ID, bob.Token), 200, "")
		expect(t, h.post("/api/auth/logout", ann.Token, map[string]any{}), 200, "")
		s.ends(time.Second, "revoked")
		deadline := time.Now().Add(5 * time.Second)
		for h.get("/readyz", "").JSON(t)["status"] != "ready" {
			if time.Now().After(deadline) {
				t.Fatal("readyz stayed degraded after the stream ended")
			}
			time.Sleep(10 * time.Millisecond)
		}
		bobS := h.openStream(bob, "")
		bobS.cancel()
	}, withEnv("TANDEM_STREAMS_MAX", "1"))
}
