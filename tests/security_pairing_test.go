package tests

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"tandem/adapters/push/mempush"
	"tandem/modules/partners"
)

// Forced pairing through guessable codes (issue 9): a stranger used to walk
// hundreds of guessed connection codes and link to the owner of a short one
// unnoticed. New codes are 8+ characters and unique ignoring case; failed
// attempts at link, create and submit-code are limited per user and per
// client IP; the owner of a code hears of every link. Issue 27: the owner of
// "password" was linked on the first try, so chosen codes must be hard to
// guess, the app may have one drawn instead, and codes expire.

// The client IPs of these tests (TEST-NET-3), sent as X-Forwarded-For from
// the trusted local proxy.
const (
	strangerIP = "203.0.113.1"
	otherIP    = "203.0.113.2"
	burstIP    = "203.0.113.3"
)

func withTrustedProxy() option { return withEnv("TANDEM_TRUSTED_PROXIES", "127.0.0.1") }

// codeFlow is one of the routes that take a code: arrange gives owner a code
// and returns it; wrong(i) is the i-th failed guess, answered missStatus
// with missCode; the right code gets 200.
type codeFlow struct {
	name       string
	arrange    func(h *harness, owner user) string
	request    func(h *harness, u user, code, ip string) req
	wrong      func(right string, i int) string
	missStatus int
	missCode   string
	// unchanged checks, through the API, that the refused attempts of
	// stranger stored nothing about owner or stranger.
	unchanged func(t *testing.T, h *harness, owner, stranger user, right string)
}

func keyedFrom(u user, path string, body map[string]any, ip string) req {
	return req{Method: "POST", Path: path, Token: u.Token, Body: body,
		Headers: map[string]string{"X-API-Key": testAPIKey, "X-Forwarded-For": ip}}
}

var codeFlows = []codeFlow{
	{
		name: "link",
		arrange: func(h *harness, owner user) string {
			expect(h.t, h.connCreate(owner, "Owner-Code-2025"), 200, "")
			return "owner-code-2025" // found in any case
		},
		request: func(h *harness, u user, code, ip string) req {
			return keyedFrom(u, "/api/partnerConnections/link", map[string]any{"userId": u.ID, "connectionCode": code}, ip)
		},
		wrong:      func(_ string, i int) string { return fmt.Sprintf("guess-%04d", i) },
		missStatus: 404, missCode: "not_found",
		unchanged: func(t *testing.T, h *harness, owner, stranger user, _ string) {
			expect(t, h.connection(owner), 200, connectionBody(owner, "", "Owner-Code-2025"))
			expect(t, h.pairingStatus(owner), 200, unpairedStatus())
			expect(t, h.pairingStatus(stranger), 200, unpairedStatus())
		},
	},
	{
		name:    "submit-code",
		arrange: func(h *harness, owner user) string { return h.generateCode(owner) },
		request: func(h *harness, u user, code, ip string) req {
			return req{Method: "POST", Path: pairingPath(u), Token: u.Token,
				Body: map[string]any{"action": "submit-code", "targetCode": code}, Headers: map[string]string{"X-Forwarded-For": ip}}
		},
		wrong: func(right string, i int) string {
			const abc = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
			if c := "Z" + string(abc[i/32%32]) + string(abc[i%32]) + "ZZZ"; c != right {
				return c
			}
			return "YYYYYY"
		},
		missStatus: 400, missCode: "invalid_pairing_code",
		unchanged: func(t *testing.T, h *harness, owner, stranger user, right string) {
			expiry := ms(h.Clock.Now().Add(24 * time.Hour))
			expect(t, h.pairingStatus(owner), 200, statusJSON("unpaired", right, expiry, "", "", "", false))
			expect(t, h.pairingStatus(stranger), 200, unpairedStatus())
		},
	},
	{
		name: "create (a taken code)",
		arrange: func(h *harness, owner user) string {
			expect(h.t, h.connCreate(owner, "Owner-Code-2025"), 200, "")
			return "stranger-own-code"
		},
		request: func(h *harness, u user, code, ip string) req {
			return keyedFrom(u, "/api/partnerConnections/create", map[string]any{"userId": u.ID, "connectionCode": code}, ip)
		},
		// every guess finds the owner's code taken, in whatever case it is spelled
		wrong: func(_ string, i int) string {
			return []string{"owner-code-2025", "OWNER-CODE-2025", "Owner-Code-2025"}[i%3]
		},
		missStatus: 409, missCode: "conflict",
		unchanged: func(t *testing.T, h *harness, owner, stranger user, _ string) {
			expect(t, h.connection(owner), 200, connectionBody(owner, "", "Owner-Code-2025"))
			expect(t, h.connection(stranger), 404, errBody("not_found", "no partner connection"))
		},
	},
}

func wantRateLimited(t *testing.T, r response) {
	t.Helper()
	expect(t, r, 429, errBody("rate_limited", "too many requests, try again later"))
	if s, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || s <= 0 || s > 3600 {
		t.Fatalf("Retry-After %q", r.Header.Get("Retry-After"))
	}
}

// TestSecurityPairingGuessesStopAtTheUserLimit: a stranger walking guessed
// codes gets 10 answers, then 429 with Retry-After from any IP, the right
// code included; the owner is untouched; another user from the same IP is not.
func TestSecurityPairingGuessesStopAtTheUserLimit(t *testing.T) {
	parallel(t)
	for _, fl := range codeFlows {
		t.Run(fl.name, func(t *testing.T) {
			eachProfile(t, func(t *testing.T, h *harness) {
				owner, stranger, other := h.newUser("owner@x.io"), h.newUser("stranger@x.io"), h.newUser("other@x.io")
				right := fl.arrange(h, owner)
				for i := range 10 {
					r := h.do(fl.request(h, stranger, fl.wrong(right, i), strangerIP))
					if r.Status != fl.missStatus || r.JSON(t)["code"] != fl.missCode {
						t.Fatalf("guess %d: %d %s", i, r.Status, r.Body)
					}
				}
				wantRateLimited(t, h.do(fl.request(h, stranger, fl.wrong(right, 10), strangerIP)))
				wantRateLimited(t, h.do(fl.request(h, stranger, right, otherIP)))
				fl.unchanged(t, h, owner, stranger, right)

				// another user behind the same IP (10 of 30 spent) is not stopped
				expect(t, h.do(fl.request(h, other, right, strangerIP)), 200, "")
			}, withTrustedProxy())
		})
	}
}

// TestSecurityPairingGuessesStopAtTheIPLimit: users taking turns behind one
// IP get 30 failed attempts in all; the same users elsewhere are not stopped.
func TestSecurityPairingGuessesStopAtTheIPLimit(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		owner := h.newUser("owner@x.io")
		fl := codeFlows[0]
		right := fl.arrange(h, owner)
		crowd := []user{h.newUser("s1@x.io"), h.newUser("s2@x.io"), h.newUser("s3@x.io"), h.newUser("s4@x.io")}
		for i := range 30 {
			expect(t, h.do(fl.request(h, crowd[i%3], fl.wrong(right, i), strangerIP)), 404, "")
		}
		wantRateLimited(t, h.do(fl.request(h, crowd[3], fl.wrong(right, 30), strangerIP)))
		wantRateLimited(t, h.do(fl.request(h, crowd[3], right, strangerIP)))
		fl.unchanged(t, h, owner, crowd[3], right)

		// the refusals by the IP limit did not count against crowd[3]'s own
		for i := range 10 {
			expect(t, h.do(fl.request(h, crowd[3], fl.wrong(right, 40+i), otherIP)), 404, "")
		}
		wantRateLimited(t, h.do(fl.request(h, crowd[3], fl.wrong(right, 50), otherIP)))
	}, withTrustedProxy())
}

// TestSecurityPairingConcurrentGuessesCannotPassTheLimit: 30 guesses at once
// by one user get at most 10 answers; every other one is 429.
func TestSecurityPairingConcurrentGuessesCannotPassTheLimit(t *testing.T) {
	parallel(t)
	for _, fl := range codeFlows {
		t.Run(fl.name, func(t *testing.T) {
			eachProfile(t, func(t *testing.T, h *harness) {
				owner, stranger := h.newUser("owner@x.io"), h.newUser("stranger@x.io")
				right := fl.arrange(h, owner)
				burst := make([]req, 30)
				for i := range burst {
					burst[i] = fl.request(h, stranger, fl.wrong(right, i), burstIP)
				}
				answered := 0
				for i, r := range h.atOnce(burst...) {
					if r.Status == 429 {
						wantRateLimited(t, r)
						continue
					}
					if r.Status != fl.missStatus || r.JSON(t)["code"] != fl.missCode {
						t.Fatalf("guess %d: %d %s", i, r.Status, r.Body)
					}
					answered++
				}
				if answered > 10 {
					t.Fatalf("%d of 30 concurrent guesses answered, limit 10", answered)
				}
				wantRateLimited(t, h.do(fl.request(h, stranger, right, otherIP)))
				fl.unchanged(t, h, owner, stranger, right)
			}, withTrustedProxy())
		})
	}
}

// TestSecurityPairingCodesAreLongAndOneWhateverTheCase: a new code of fewer
// than 8 characters is 400 with the rule; a code taken in another case is
// 409; a link finds the code in any case.
func TestSecurityPairingCodesAreLongAndOneWhateverTheCase(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		owner, other, linker := h.newUser("owner@x.io"), h.newUser("other@x.io"), h.newUser("linker@x.io")
		rule := errBody("invalid_request", "connectionCode must be 8 to 64 characters of A-Z, a-z, 0-9, _ and -, unique ignoring case")
		for _, short := range []string{"abcd", "abc-1_Z"} {
			expect(t, h.connCreate(owner, short), 400, rule)
		}
		expect(t, h.connection(owner), 404, errBody("not_found", "no partner connection"))

		expect(t, h.connCreate(owner, "Our-Code-8"), 200, "")
		expect(t, h.connCreate(other, "our-code-8"), 409, errBody("conflict", "connection code already taken"))
		expect(t, h.connCreate(other, "OUR-CODE-8"), 409, errBody("conflict", "connection code already taken"))
		expect(t, h.connection(other), 404, "")
		expect(t, h.connLink(linker, "oUR-cODE-8"), 200, `{"status":"success","data":{"partnerId":"`+owner.ID+`"}}`)
		expect(t, h.connection(linker), 200, connectionBody(linker, owner.ID, "Our-Code-8"))

		// a code of 4 stored under the earlier rule still links, in any case
		if h.DB != nil { // only SQL can hold one: the memory profile starts empty
			legacy := h.newUser("legacy@x.io")
			if _, err := h.DB.Exec("INSERT INTO partner_connections (user_id, id, code, code_key, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
				legacy.ID, "legacy-connection", "AbCd", "abcd", h.Clock.Now().UnixMilli(), h.Clock.Now().Add(time.Hour).UnixMilli()); err != nil {
				t.Fatal(err)
			}
			expect(t, h.connLink(other, "ABCD"), 200, `{"status":"success","data":{"partnerId":"`+legacy.ID+`"}}`)
			expect(t, h.connection(legacy), 200, connectionBody(legacy, other.ID, "AbCd"))
		}
	})
}

// TestSecurityPairingLinkNotifiesTheOwner: a link is no longer silent: the
// owner's inbox holds a partnerActivity entry saying how to end it, and it
// is pushed to the owner's device; the linker hears nothing.
func TestSecurityPairingLinkNotifiesTheOwner(t *testing.T) {
	eachProfileWithPushes(t, func(t *testing.T, h *harness, pushes *mempush.Outbox) {
		owner, linker := h.newUser("owner@x.io"), h.newUser("linker@x.io")
		h.registerDevice(owner, "ExponentPushToken[owner]", "ios", "expo")
		h.registerDevice(linker, "ExponentPushToken[linker]", "ios", "expo")
		expect(t, h.connCreate(owner, "Owner-Code-2025"), 200, "")
		expect(t, h.get(notifPath(owner, "/notifications"), owner.Token), 200, `{"success":true,"notifications":[]}`)

		expect(t, h.connLink(linker, "Owner-Code-2025"), 200, "")
		const title = "New partner connection"
		const message = "Someone linked with your connection code and is now your partner. " +
			"If you did not expect this, unlink to end the connection."
		expect(t, h.get(notifPath(owner, "/notifications"), owner.Token), 200, `{"success":true,"notifications":[`+
			notificationJSON("<string>", title, message, "partnerActivity", false, h.Clock.Now())+`]}`)
		got := pushes.To(owner.ID)
		if len(got) != 1 || got[0].Message.Title != title || got[0].Message.Body != message || got[0].Message.Category != "partnerActivity" {
			t.Fatalf("pushes to the owner %+v", got)
		}
		expect(t, h.get(notifPath(linker, "/notifications"), linker.Token), 200, `{"success":true,"notifications":[]}`)
		if len(pushes.To(linker.ID)) != 0 {
			t.Fatal("the linker got a push")
		}
	})
}

// TestSecurityPairingWeakCodesAreRefused: the codes a guesser tries first
// are refused with the reason and nothing is stored, so a later link with
// them finds no one; a strong code is stored and links.
func TestSecurityPairingWeakCodesAreRefused(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		owner, stranger := h.newUser("owner@x.io"), h.newUser("stranger@x.io")
		for code, why := range map[string]string{
			"password":   "it contains a common password",
			"PassWord":   "it contains a common password", // compared ignoring case, so judged so
			"qwertyuiop": "it contains a common password",
			"aaaaaaaa":   "it contains a repeated character or group",
			"12345678":   "it contains a common password",
			"abcdefgh":   "it contains a sequence of letters or digits",
		} {
			expect(t, h.connCreate(owner, code), 400, errInvalid("connectionCode is too easy to guess: "+why))
			expect(t, h.connection(owner), 404, errBody("not_found", "no partner connection"))
			expect(t, h.connLink(stranger, code), 404, errBody("not_found", "connection code not found"))
			h.Clock.Advance(time.Hour) // the stranger's misses must not run into the limit
		}
		expect(t, h.pairingStatus(owner), 200, unpairedStatus())

		expect(t, h.connCreate(owner, "Tide-Lantern-47"), 200, `{"status":"success","data":{"connectionId":"<string>",
			"connectionCode":"Tide-Lantern-47","expiresAt":`+ms(h.Clock.Now().Add(7*24*time.Hour))+`}}`)
		expect(t, h.connection(owner), 200, connectionBody(owner, "", "Tide-Lantern-47"))
		expect(t, h.connLink(stranger, "tide-lantern-47"), 200, `{"status":"success","data":{"partnerId":"`+owner.ID+`"}}`)
	})
}

// TestSecurityPairingLovePhraseCodesAreRefused: codes made of common love
// phrases of the supported languages (zxcvbn knows English only, and let
// each of these pass) are 400 invalid_request with the reason, in any
// language's frame, nothing is stored, and they cost no code attempt; a
// love word among random characters is a code.
func TestSecurityPairingLovePhraseCodesAreRefused(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		owner, stranger := h.newUser("owner@x.io"), h.newUser("stranger@x.io")
		const why = "connectionCode is too easy to guess: it is made of common love phrases"
		for _, code := range []string{"iloveyou_forever", "mi_amor_2024", "ichliebedich", "JeTaime-MonAmour",
			"eu-te-amo-2023", "aishiteru-zutto", "ya-tebya-lyublyu", "1l0v3y0u-4lw4ys", "Mein_Schatz_fuer_immer",
			"te-quiero-mucho", "woaini-1314", "saranghae-yeobo"} {
			expect(t, h.connCreate(owner, code), 400, errInvalid(why))
			expect(t, h.connection(owner), 404, errBody("not_found", "no partner connection"))
		}
		// In German the whole sentence is German, the reason included.
		r := h.do(req{Method: "POST", Path: "/api/partnerConnections/create", Token: owner.Token,
			Body:    map[string]any{"userId": owner.ID, "connectionCode": "ich-liebe-dich-2024"},
			Headers: map[string]string{"X-API-Key": testAPIKey, "Accept-Language": "de"}})
		expect(t, r, 400, `{"success":false,"error":"`+why+`","code":"invalid_request",`+
			`"message":"connectionCode ist zu leicht zu erraten: er besteht aus gängigen Liebesfloskeln"}`)
		// Twelve refusals cost none of the 10 code attempts an hour.
		expect(t, h.connCreate(owner, "iloveyou-q7Rk2mWx"), 200, `{"status":"success","data":{"connectionId":"<string>",
			"connectionCode":"iloveyou-q7Rk2mWx","expiresAt":`+ms(h.Clock.Now().Add(7*24*time.Hour))+`}}`)
		expect(t, h.connLink(stranger, "ILOVEYOU-q7rk2mwx"), 200, `{"status":"success","data":{"partnerId":"`+owner.ID+`"}}`)
	})
}

var drawnCodeRe = regexp.MustCompile(`^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{4}(-[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{4}){2}$`)

// TestSecurityPairingCreateWithoutACodeDrawsOne: no code, or an empty one,
// draws a code of 12 characters without look-alikes (no 0/O/1/I/l), returned
// with its expiry and stored; the partner links with it as typed in any case.
func TestSecurityPairingCreateWithoutACodeDrawsOne(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		owner, partner := h.newUser("owner@x.io"), h.newUser("partner@x.io")
		week := ms(h.Clock.Now().Add(7 * 24 * time.Hour))
		shape := `{"status":"success","data":{"connectionId":"<string>","connectionCode":"<string>","expiresAt":` + week + `}}`
		r := h.keyed("POST", "/api/partnerConnections/create", owner, map[string]any{"userId": owner.ID})
		expect(t, r, 200, shape)
		first := r.JSON(t)["data"].(map[string]any)["connectionCode"].(string)
		r = h.connCreate(owner, "") // an empty code draws another, replacing the first
		expect(t, r, 200, shape)
		code := r.JSON(t)["data"].(map[string]any)["connectionCode"].(string)
		for _, c := range []string{first, code} {
			if !drawnCodeRe.MatchString(c) || len(c) < 10 || strings.ContainsAny(c, "0O1Il") {
				t.Fatalf("drawn code %q", c)
			}
		}
		if code == first {
			t.Fatalf("drew %q twice", code)
		}
		expect(t, h.connection(owner), 200, `{"status":"success","data":{"userId":"`+owner.ID+`","partnerId":null,
			"connectionCode":"`+code+`","expiresAt":`+week+`}}`)
		expect(t, h.connLink(partner, first), 404, errBody("not_found", "connection code not found"))
		expect(t, h.connLink(partner, strings.ToLower(code)), 200, `{"status":"success","data":{"partnerId":"`+owner.ID+`"}}`)
		expect(t, h.connection(partner), 200, connectionBody(partner, owner.ID, code))
	})
}

// TestSecurityPairingExpiredCodesLinkNoOne: from its expiry on
// (TANDEM_CONNECTION_CODE_TTL after the create), a code links no one and the stranger gets exactly the answer of
// an unknown code; its unpaired owner no longer sees it, and the purge frees
// it. A paired owner's code outlives its expiry (both partners see it).
func TestSecurityPairingExpiredCodesLinkNoOne(t *testing.T) {
	eachProfileWith(t, func(t *testing.T, h *harness, svc *partners.Service) {
		owner, stranger, other := h.newUser("owner@x.io"), h.newUser("stranger@x.io"), h.newUser("other@x.io")
		a, b := h.newUser("a@x.io"), h.newUser("b@x.io")
		expect(t, h.connCreate(owner, "Tide-Lantern-47"), 200, `{"status":"success","data":{"connectionId":"<string>",
			"connectionCode":"Tide-Lantern-47","expiresAt":`+ms(h.Clock.Now().Add(48*time.Hour))+`}}`)
		h.pairByLink(a, b) // a owns "pair-<a>"
		h.Clock.Advance(48*time.Hour - time.Millisecond)
		expect(t, h.connection(owner), 200, connectionBody(owner, "", "Tide-Lantern-47"))
		h.Clock.Advance(time.Millisecond)

		expired, unknown := h.connLink(stranger, "Tide-Lantern-47"), h.connLink(stranger, "Nobody-Holds-47")
		expect(t, expired, 404, errBody("not_found", "connection code not found"))
		if string(expired.Body) != string(unknown.Body) || expired.Status != unknown.Status {
			t.Fatalf("expired %d %s, unknown %d %s", expired.Status, expired.Body, unknown.Status, unknown.Body)
		}
		expect(t, h.pairingStatus(stranger), 200, unpairedStatus())
		expect(t, h.pairingStatus(owner), 200, unpairedStatus())
		expect(t, h.connection(stranger), 404, errBody("not_found", "no partner connection"))
		expect(t, h.connection(owner), 404, errBody("not_found", "no partner connection"))
		expect(t, h.connection(a), 200, connectionBody(a, b.ID, "pair-"+a.ID))

		// until the purge the expired code still holds its key
		expect(t, h.connCreate(other, "tide-lantern-47"), 409, errBody("conflict", "connection code already taken"))
		if n, err := svc.PurgeExpiredConnections(t.Context()); err != nil || n != 1 {
			t.Fatalf("purge: %d %v", n, err)
		}
		if h.DB != nil {
			var left []string
			if err := h.DB.Select(&left, "SELECT user_id FROM partner_connections ORDER BY user_id"); err != nil {
				t.Fatal(err)
			}
			if len(left) != 1 || left[0] != a.ID {
				t.Fatalf("rows left %v, want only the paired owner's", left)
			}
		}
		expect(t, h.connection(a), 200, connectionBody(a, b.ID, "pair-"+a.ID))
		expect(t, h.connCreate(other, "tide-lantern-47"), 200, "")
		expect(t, h.connLink(stranger, "Tide-Lantern-47"), 200, `{"status":"success","data":{"partnerId":"`+other.ID+`"}}`)
	}, withEnv("TANDEM_CONNECTION_CODE_TTL", "48h"))
}
