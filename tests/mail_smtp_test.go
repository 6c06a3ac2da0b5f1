package tests

import (
	"bytes"
	"io"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	gosmtp "github.com/emersion/go-smtp"
)

// TestSignUpThroughARealSMTPRelay runs the app with TANDEM_MAIL=smtp://...
// against an in-process SMTP server, reads the real message it received and
// verifies the account with the code found in its plain-text part.
func TestSignUpThroughARealSMTPRelay(t *testing.T) {
	parallel(t)
	for _, p := range profiles(t) {
		t.Run(p.name, func(t *testing.T) {
			parallel(t)
			relay := startRelay(t)
			h := newHarness(t, p, withEnv("TANDEM_MAIL", "smtp://"+relay.addr), withEnv("TANDEM_MAIL_FROM", "Tandem <no-reply@tandem.test>"))
			r := h.post("/api/auth/signup/email", "", map[string]any{"email": "ann@example.com", "password": pw})
			expect(t, r, 200, `{"success":true,"code":"verification_required","userId":"<string>","message":"<string>"}`)
			id := r.JSON(t)["userId"].(string)

			msgs := relay.wait(t, 1) // the sender goes right after the answer
			if len(msgs) != 1 || msgs[0].to != "ann@example.com" || msgs[0].from != "no-reply@tandem.test" {
				t.Fatalf("relay got %+v", msgs)
			}
			code := codeInPlainText(t, msgs[0].data)
			v := h.post("/api/auth/signup/email", "", map[string]any{"userId": id, "verificationCode": code})
			expect(t, v, 200, `{"success":true,"code":"verification_success","userId":"`+id+`","token":"<string>","message":"<string>"}`)
		})
	}
}

// codeInPlainText parses the message, checks it is text/plain and returns
// the only 6-digit number of its decoded body.
func codeInPlainText(t *testing.T, raw []byte) string {
	t.Helper()
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	mt, params, err := mime.ParseMediaType(m.Header.Get("Content-Type"))
	if err != nil || mt != "text/plain" || !strings.EqualFold(params["charset"], "utf-8") {
		t.Fatalf("content type %q", m.Header.Get("Content-Type"))
	}
	var body io.Reader = m.Body
	if strings.EqualFold(m.Header.Get("Content-Transfer-Encoding"), "quoted-printable") {
		body = quotedprintable.NewReader(m.Body)
	}
	text, _ := io.ReadAll(body)
	codes := regexp.MustCompile(`\b\d{6}\b`).FindAllString(string(text), -1)
	if len(codes) != 1 {
		t.Fatalf("want exactly one 6-digit number in %q", text)
	}
	return codes[0]
}

type relayMsg struct {
	from, to string
	data     []byte
}

// relay is a minimal in-process SMTP server that keeps what it receives.
type relay struct {
	addr string
	mu   sync.Mutex
	msgs []relayMsg
}

func startRelay(t *testing.T) *relay {
	t.Helper()
	r := &relay{}
	srv := gosmtp.NewServer(r)
	srv.Domain = "relay.test"
	srv.AllowInsecureAuth = true
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r.addr = ln.Addr().String()
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close() })
	return r
}

// wait returns what the relay received once it holds n messages, or fails
// the test after 5 seconds.
func (r *relay) wait(t *testing.T, n int) []relayMsg {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		msgs := r.received()
		if len(msgs) >= n {
			return msgs
		}
		if time.Now().After(deadline) {
			t.Fatalf("the relay received %d messages in 5s, want %d", len(msgs), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (r *relay) received() []relayMsg {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]relayMsg(nil), r.msgs...)
}

func (r *relay) NewSession(*gosmtp.Conn) (gosmtp.Session, error) { return &relaySession{r: r}, nil }

type relaySession struct {
	r   *relay
	cur relayMsg
}

func (s *relaySession) Mail(from string, _ *gosmtp.MailOptions) error { s.cur.from = from; return nil }
func (s *relaySession) Rcpt(to string, _ *gosmtp.RcptOptions) error   { s.cur.to = to; return nil }
func (s *relaySession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.cur.data = b
	s.r.mu.Lock()
	s.r.msgs = append(s.r.msgs, s.cur)
	s.r.mu.Unlock()
	return nil
}
func (s *relaySession) Reset()        { s.cur = relayMsg{} }
func (s *relaySession) Logout() error { return nil }
