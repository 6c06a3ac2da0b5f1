package partners_test

import (
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/partners"
)

// The pairing rules, decided on a Pairing as a repository loads it: no
// adapter, no service.

var ruleNow = time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)

func liveCode(user, code string) partners.PairingCode {
	return partners.PairingCode{UserID: user, Code: code, ExpiresAt: ruleNow.Add(time.Hour), CreatedAt: ruleNow}
}

func TestDecideSubmit(t *testing.T) {
	t.Parallel()
	q := partners.Request{From: "a", To: "b", CreatedAt: ruleNow}
	p := partners.Partnership{ID: "p1", UserA: "b", UserB: "a", CreatedAt: ruleNow}
	expired := liveCode("b", "BBBBBB")
	expired.ExpiresAt = ruleNow
	both := []partners.PairingCode{liveCode("a", "AAAAAA"), liveCode("b", "BBBBBB")}
	cases := []struct {
		name      string
		st        partners.Pairing
		code      string
		connected bool
		request   bool
		myCode    string
		errCode   string
	}{
		{name: "first submit waits", st: partners.Pairing{Codes: both}, code: "BBBBBB", request: true},
		{name: "no own code needed to ask", st: partners.Pairing{Codes: both[1:]}, code: "BBBBBB", request: true},
		{name: "replaces the caller's request to someone else",
			st:   partners.Pairing{Codes: both, Requests: []partners.Request{{From: "a", To: "c"}}},
			code: "BBBBBB", request: true},
		{name: "mutual: the other asked first, both connect",
			st:   partners.Pairing{Codes: both, Requests: []partners.Request{{From: "b", To: "a"}}},
			code: "BBBBBB", connected: true, myCode: "AAAAAA"},
		{name: "the other asked someone else: still waits",
			st:   partners.Pairing{Codes: both, Requests: []partners.Request{{From: "b", To: "c"}}},
			code: "BBBBBB", request: true},
		{name: "caller paired meanwhile", st: partners.Pairing{Codes: both, Paired: []string{"a"}}, code: "BBBBBB",
			errCode: "already_paired"},
		{name: "owner paired meanwhile, even when mutual",
			st:   partners.Pairing{Codes: both, Paired: []string{"b"}, Requests: []partners.Request{{From: "b", To: "a"}}},
			code: "BBBBBB", errCode: "already_paired"},
		{name: "code replaced meanwhile", st: partners.Pairing{Codes: both}, code: "CCCCCC", errCode: "invalid_pairing_code"},
		{name: "owner's code gone", st: partners.Pairing{Codes: both[:1]}, code: "BBBBBB", errCode: "invalid_pairing_code"},
		{name: "code expired at the very instant",
			st: partners.Pairing{Codes: []partners.PairingCode{expired}}, code: "BBBBBB", errCode: "invalid_pairing_code"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			change, out, err := partners.DecideSubmit(tc.st, q, tc.code, p, ruleNow)
			if tc.errCode != "" {
				if err == nil || core.As(err).Code != tc.errCode || change != (partners.PairingChange{}) {
					t.Fatalf("want %s and no change, got %v %+v", tc.errCode, err, change)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (change.Partnership != nil) != tc.connected || (change.Request != nil) != tc.request {
				t.Fatalf("change %+v", change)
			}
			if tc.connected && *change.Partnership != p || tc.request && *change.Request != q {
				t.Fatalf("change %+v", change)
			}
			if out != (partners.SubmitOutcome{Connected: tc.connected, PartnerID: "b", MyCode: tc.myCode}) {
				t.Fatalf("outcome %+v", out)
			}
		})
	}
}

func TestDecideLink(t *testing.T) {
	t.Parallel()
	p := partners.Partnership{ID: "p1", UserA: "owner", UserB: "me", CreatedAt: ruleNow}
	conn := func(user, code string, expires time.Time) partners.Connection {
		return partners.Connection{ID: "c", UserID: user, Code: code, CreatedAt: ruleNow, ExpiresAt: expires}
	}
	live := conn("owner", "Blue-Fox-88", ruleNow.Add(time.Hour))
	cases := []struct {
		name    string
		st      partners.Pairing
		code    string
		errCode string
	}{
		{name: "links", st: partners.Pairing{Connections: []partners.Connection{live}}, code: "Blue-Fox-88"},
		{name: "the linker's own code does not matter",
			st:   partners.Pairing{Connections: []partners.Connection{conn("me", "mine-1234", ruleNow), live}},
			code: "Blue-Fox-88"},
		{name: "respelled meanwhile (the exact spelling read is gone)",
			st: partners.Pairing{Connections: []partners.Connection{live}}, code: "blue-fox-88", errCode: "not_found"},
		{name: "owner's code deleted", st: partners.Pairing{}, code: "Blue-Fox-88", errCode: "not_found"},
		{name: "code of the linker, not of the owner",
			st:   partners.Pairing{Connections: []partners.Connection{conn("me", "Blue-Fox-88", ruleNow.Add(time.Hour))}},
			code: "Blue-Fox-88", errCode: "not_found"},
		{name: "expired at the very instant",
			st:   partners.Pairing{Connections: []partners.Connection{conn("owner", "Blue-Fox-88", ruleNow)}},
			code: "Blue-Fox-88", errCode: "not_found"},
		{name: "owner paired meanwhile",
			st:   partners.Pairing{Connections: []partners.Connection{live}, Paired: []string{"owner"}},
			code: "Blue-Fox-88", errCode: "already_paired"},
		{name: "linker paired meanwhile",
			st:   partners.Pairing{Connections: []partners.Connection{live}, Paired: []string{"me"}},
			code: "Blue-Fox-88", errCode: "already_paired"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			change, err := partners.DecideLink(tc.st, tc.code, p, ruleNow)
			if tc.errCode != "" {
				if err == nil || core.As(err).Code != tc.errCode || change != (partners.PairingChange{}) {
					t.Fatalf("want %s and no change, got %v %+v", tc.errCode, err, change)
				}
				return
			}
			if err != nil || change.Partnership == nil || *change.Partnership != p || change.Request != nil {
				t.Fatalf("got %+v %v", change, err)
			}
		})
	}
}
