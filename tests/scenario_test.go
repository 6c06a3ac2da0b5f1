package tests

import (
	"maps"
	"syscall"
	"testing"
	"time"
)

// scenario is one request and what it must get back, in the style of
// PocketBase's ApiScenario: the status, the exact body shape and the stored
// effect, read back through the API afterwards.
type scenario struct {
	name   string
	req    req                            // a Token of noAuth sends none; see signedIn for the table's user
	status int                            // the status the request must get
	want   string                         // the exact body shape (see expect); "" checks the status only
	after  func(t *testing.T, h *harness) // the stored effect, read back through the API
}

// noAuth as a scenario's token sends the request without one.
const noAuth = "-"

// runScenarios runs each scenario as a subtest of t, in order, on h: the
// caller runs eachProfile, so every profile runs the table.
func runScenarios(t *testing.T, h *harness, ss []scenario) {
	t.Helper()
	for _, s := range ss {
		t.Run(s.name, func(t *testing.T) {
			if s.req.Token == noAuth {
				s.req.Token = ""
			}
			r, err := h.send(h.request(s.req))
			if err != nil {
				t.Fatalf("%s %s: %v", s.req.Method, s.req.Path, err)
			}
			expect(t, r, s.status, s.want)
			if s.after != nil {
				s.after(t, h)
			}
		})
	}
}

// signedIn is ss with u's token on every request that names none.
func signedIn(u user, ss []scenario) []scenario {
	out := make([]scenario, len(ss))
	for i, s := range ss {
		if s.req.Token == "" {
			s.req.Token = u.Token
		}
		out[i] = s
	}
	return out
}

// afterEach is ss with check run after every scenario (after its own
// after): the stored effect a whole table shares, such as "a refused
// request writes nothing".
func afterEach(check func(t *testing.T, h *harness), ss []scenario) []scenario {
	out := make([]scenario, len(ss))
	for i, s := range ss {
		own := s.after
		s.after = func(t *testing.T, h *harness) {
			if own != nil {
				own(t, h)
			}
			check(t, h)
		}
		out[i] = s
	}
	return out
}

// The error bodies many tables share.
var (
	errNoToken    = errBody("unauthorized", "authentication required: send Authorization: Bearer <token>")
	errNotYours   = errBody("forbidden", "you may only act on your own account")
	errAdminsOnly = errBody("forbidden", "administrators only")
	errNotAllowed = errBody("method_not_allowed", "method not allowed on this route")
	errNotJSON    = errBody("unsupported_media_type", "send the body as application/json")
)

// errInvalid is the body of a 400 invalid_request with msg.
func errInvalid(msg string) string { return errBody("invalid_request", msg) }

// GET, POST, PUT, PATCH and DELETE build a table's requests; by, anonymous,
// with, asText and withKey adjust one.
func GET(path string) req { return req{Method: "GET", Path: path} }

func POST(path string, body any) req { return req{Method: "POST", Path: path, Body: body} }

func PUT(path string, body any) req { return req{Method: "PUT", Path: path, Body: body} }

func PATCH(path string, body any) req { return req{Method: "PATCH", Path: path, Body: body} }

func DELETE(path string) req { return req{Method: "DELETE", Path: path} }

// by is r sent with u's token.
func (r req) by(u user) req {
	r.Token = u.Token
	return r
}

// anonymous is r sent without a token, whoever the table's user is.
func (r req) anonymous() req {
	r.Token = noAuth
	return r
}

// with is r with one more header.
func (r req) with(name, value string) req {
	hs := maps.Clone(r.Headers)
	if hs == nil {
		hs = map[string]string{}
	}
	hs[name] = value
	r.Headers = hs
	return r
}

// asText is r with its body sent as plain text.
func (r req) asText() req { return r.with("Content-Type", "text/plain") }

// withKey is r with the service's X-API-Key.
func (r req) withKey() req { return r.with("X-API-Key", testAPIKey) }

// edited is a copy of base with edit applied: a nil value deletes the key.
func edited(base, edit map[string]any) map[string]any {
	out := maps.Clone(base)
	for k, v := range edit {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}

// benchScenario measures one scenario's request on every profile, as
// PocketBase's scenarios double as benchmarks: setup prepares the app and
// returns the scenario, whose status and body the first request checks and
// whose status every request checks. The write budgets are lifted: a
// benchmark of creates runs far past a minute's budget.
func benchScenario(b *testing.B, setup func(h *harness) scenario, opts ...option) {
	opts = append([]option{withUnboundedWrites()}, opts...)
	for _, p := range profiles(b) {
		b.Run(p.name, func(b *testing.B) {
			h := newHarness(b, p, opts...)
			s := setup(h)
			if s.req.Token == noAuth {
				s.req.Token = ""
			}
			expect(b, h.do(s.req), s.status, s.want)
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				if r := h.do(s.req); r.Status != s.status {
					b.Fatalf("status %d, want %d", r.Status, s.status)
				}
			}
			// The process's CPU time (client and server both) per request:
			// on a shared machine it moves far less than ns/op, which
			// counts the time other processes held the cores.
			b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// processCPU is the user and system CPU time this process has used.
func processCPU() time.Duration {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
