// Package expotest runs a local Expo push API for tests (send and
// getReceipts), so they need no Expo account and no network.
package expotest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

const (
	// SendPath and ReceiptsPath are the paths of Expo's two calls.
	SendPath     = "/--/api/v2/push/send"
	ReceiptsPath = "/--/api/v2/push/getReceipts"
)

// Server speaks Expo's push API. Each send is answered with one ticket per
// message, chosen by the message's token (first match):
//
//	contains "gone"   error DeviceNotRegistered (the token is dead at once)
//	contains "toobig" error MessageTooBig
//	contains "long"   ok, with a 65-byte id no receipt check could store
//	otherwise         ok, with the id "ticket-N", N counting every message
//	                  the server received (so the ids of a first batch are
//	                  its indexes)
//
// getReceipts answers each id by the token its ticket was issued for, or by
// the id itself when this server did not issue it (first match):
//
//	contains "gone" or "dies" error DeviceNotRegistered
//	contains "big"            error MessageTooBig
//	contains "pending"        no receipt yet (left out of the answer)
//	otherwise                 ok
//
// Every request is recorded. Requests Expo would refuse (not a JSON POST
// accepting JSON, an unknown path, a body of the wrong shape, getReceipts
// without ids or with more than 1000) fail the test that started the server.
type Server struct {
	// URL is the server's base.
	URL string
	srv *httptest.Server

	mu       sync.Mutex
	received int               // messages sent so far
	tokenOf  map[string]string // issued ticket id -> token
	requests []Request
	batches  [][]map[string]any // the messages of each send
	asked    [][]string         // the ids of each getReceipts request
	status   int                // answer this HTTP status instead, when set
	body     string             // with this body
	dropLast bool               // answer one ticket too few
	problems []string
}

// Request is what the server saw of one request, besides its body.
type Request struct {
	Method, Path, ContentType, Accept string
}

// Start runs a server until the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{tokenOf: map[string]string{}}
	s.srv = httptest.NewServer(s)
	s.URL = s.srv.URL
	t.Cleanup(func() {
		s.srv.Close()
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, p := range s.problems {
			t.Errorf("expotest: request Expo would refuse: %s", p)
		}
	})
	return s
}

// SendURL is the send endpoint (the client's URL, TANDEM_PUSH's expo?url=);
// getReceipts is beside it.
func (s *Server) SendURL() string { return s.URL + SendPath }

// Client is an HTTP client for the server.
func (s *Server) Client() *http.Client { return s.srv.Client() }

// FailWith makes the server answer every later request, send or
// getReceipts, with this HTTP status and body (still recording it).
func (s *Server) FailWith(status int, body string) {
	s.mu.Lock()
	s.status, s.body = status, body
	s.mu.Unlock()
}

// DropLastTicket makes every later send answer one ticket too few.
func (s *Server) DropLastTicket() {
	s.mu.Lock()
	s.dropLast = true
	s.mu.Unlock()
}

// Requests are every request so far, send and getReceipts, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Batches are the messages of each send so far.
func (s *Server) Batches() [][]map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]map[string]any(nil), s.batches...)
}

// Asked are the ids of each getReceipts request so far.
func (s *Server) Asked() [][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]string(nil), s.asked...)
}

// AskedFor is how often getReceipts named a ticket issued for token.
func (s *Server) AskedFor(token string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, ids := range s.asked {
		for _, id := range ids {
			if tok, ok := s.tokenOf[id]; ok && tok == token {
				n++
			}
		}
	}
	return n
}

func (s *Server) problem(format string, args ...any) {
	s.problems = append(s.problems, fmt.Sprintf(format, args...))
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	raw, _ := io.ReadAll(r.Body)
	s.requests = append(s.requests, Request{r.Method, r.URL.Path, r.Header.Get("Content-Type"), r.Header.Get("Accept")})
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" || r.Header.Get("Accept") != "application/json" {
		s.problem("%s %s %v", r.Method, r.URL.Path, r.Header)
	}
	var answer string
	switch r.URL.Path {
	case SendPath:
		answer = s.send(raw)
	case ReceiptsPath:
		answer = s.receipts(raw)
	default:
		s.problem("request to %s", r.URL.Path)
		w.WriteHeader(http.StatusNotFound)
		return
	}
	if s.status != 0 {
		w.WriteHeader(s.status)
		_, _ = io.WriteString(w, s.body)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, answer)
}

func (s *Server) send(raw []byte) string {
	var msgs []map[string]any
	if err := json.Unmarshal(raw, &msgs); err != nil {
		s.problem("send body is not a JSON array: %s", raw)
	}
	s.batches = append(s.batches, msgs)
	var tickets []string
	for _, m := range msgs {
		to, _ := m["to"].(string)
		id := fmt.Sprintf("ticket-%d", s.received)
		s.received++
		switch {
		case strings.Contains(to, "gone"):
			tickets = append(tickets, `{"status":"error","message":"\"`+to+`\" is not a registered push notification recipient","details":{"error":"DeviceNotRegistered","expoPushToken":"`+to+`"}}`)
		case strings.Contains(to, "toobig"):
			tickets = append(tickets, `{"status":"error","message":"too big","details":{"error":"MessageTooBig"}}`)
		case strings.Contains(to, "long"):
			tickets = append(tickets, `{"status":"ok","id":"`+strings.Repeat("x", 65)+`"}`)
		default:
			if s.status == 0 {
				s.tokenOf[id] = to
			}
			tickets = append(tickets, `{"status":"ok","id":"`+id+`"}`)
		}
	}
	if s.dropLast && len(tickets) > 0 {
		tickets = tickets[:len(tickets)-1]
	}
	return `{"data":[` + strings.Join(tickets, ",") + `]}`
}

func (s *Server) receipts(raw []byte) string {
	var in struct {
		IDs []string `json:"ids"`
	}
	if err := json.Unmarshal(raw, &in); err != nil || len(in.IDs) == 0 || len(in.IDs) > 1000 {
		s.problem("getReceipts body %s", raw)
	}
	s.asked = append(s.asked, in.IDs)
	var data []string
	for _, id := range in.IDs {
		key, issued := s.tokenOf[id]
		if !issued {
			key = id
		}
		switch {
		case strings.Contains(key, "gone"), strings.Contains(key, "dies"):
			data = append(data, fmt.Sprintf(`%q:{"status":"error","message":"not a registered push notification recipient","details":{"error":"DeviceNotRegistered"}}`, id))
		case strings.Contains(key, "big"):
			data = append(data, fmt.Sprintf(`%q:{"status":"error","message":"too big","details":{"error":"MessageTooBig"}}`, id))
		case strings.Contains(key, "pending"):
		default:
			data = append(data, fmt.Sprintf(`%q:{"status":"ok"}`, id))
		}
	}
	return `{"data":{` + strings.Join(data, ",") + `}}`
}
