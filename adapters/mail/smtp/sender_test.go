package smtp_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"log"
	"math/big"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	gosmtp "github.com/emersion/go-smtp"

	"tandem/adapters/mail/smtp"
	"tandem/core"
	"tandem/modules/accounts"
)

// received is one message as the relay saw it.
type received struct {
	From string
	To   []string
	Data []byte
	TLS  bool // the message came over an encrypted link
}

// relay is an in-process SMTP server that records what it accepts.
type relay struct {
	Addr string

	requireAuth bool
	user, pass  string // the credentials it accepts

	mu       sync.Mutex
	msgs     []received
	authUser string
	authPass string
}

type relayOptions struct {
	tls         *tls.Config // non-nil: offer STARTTLS
	requireAuth bool
	user, pass  string
}

func startRelay(t *testing.T, o relayOptions) *relay {
	t.Helper()
	r := &relay{requireAuth: o.requireAuth, user: o.user, pass: o.pass}
	srv := gosmtp.NewServer(r)
	srv.Domain = "relay.test"
	srv.TLSConfig = o.tls
	srv.ErrorLog = log.New(io.Discard, "", 0)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r.Addr = l.Addr().String()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(l)
	}()
	t.Cleanup(func() {
		_ = srv.Close()
		<-done
	})
	return r
}

func (r *relay) messages() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.msgs...)
}

func (r *relay) credentials() (string, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.authUser, r.authPass
}

func (r *relay) NewSession(c *gosmtp.Conn) (gosmtp.Session, error) {
	return &session{relay: r, conn: c}, nil
}

type session struct {
	relay  *relay
	conn   *gosmtp.Conn
	authed bool
	cur    received
}

var _ gosmtp.AuthSession = (*session)(nil)

func (s *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		s.relay.mu.Lock()
		s.relay.authUser, s.relay.authPass = user, pass
		s.relay.mu.Unlock()
		if user != s.relay.user || pass != s.relay.pass {
			return errors.New("invalid credentials")
		}
		s.authed = true
		return nil
	}), nil
}

func (s *session) Mail(from string, _ *gosmtp.MailOptions) error {
	if s.relay.requireAuth && !s.authed {
		return gosmtp.ErrAuthRequired
	}
	s.cur = received{From: from}
	return nil
}

func (s *session) Rcpt(to string, _ *gosmtp.RcptOptions) error {
	s.cur.To = append(s.cur.To, to)
	return nil
}

func (s *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.cur.Data = b
	_, s.cur.TLS = s.conn.TLSConnectionState()
	s.relay.mu.Lock()
	s.relay.msgs = append(s.relay.msgs, s.cur)
	s.relay.mu.Unlock()
	return nil
}

func (s *session) Reset()        { s.cur = received{} }
func (s *session) Logout() error { return nil }

// selfSigned returns a server certificate for 127.0.0.1 and a pool that trusts it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "relay.test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// closedAddr is a loopback address where nothing listens any more.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

func onlyMessage(t *testing.T, r *relay) (received, *mail.Message) {
	t.Helper()
	msgs := r.messages()
	if len(msgs) != 1 {
		t.Fatalf("relay got %d messages, want 1", len(msgs))
	}
	m, err := mail.ReadMessage(bytes.NewReader(msgs[0].Data))
	if err != nil {
		t.Fatalf("parse received message: %v\n%s", err, msgs[0].Data)
	}
	return msgs[0], m
}

func decodedBody(t *testing.T, m *mail.Message) string {
	t.Helper()
	b, err := io.ReadAll(quotedprintable.NewReader(m.Body))
	if err != nil {
		t.Fatalf("decode quoted-printable body: %v", err)
	}
	return string(b)
}

var sixDigits = regexp.MustCompile(`\b\d{6}\b`)

func TestSendDeliversCodeMail(t *testing.T) {
	t.Parallel()
	r := startRelay(t, relayOptions{})
	s := smtp.New(smtp.Config{Addr: r.Addr, From: "Tandem <no-reply@tandem.test>"})

	// A long line forces soft line breaks; non-ASCII forces =XX escapes.
	text := "Bonjour Zoé,\n\n" + strings.Repeat("Welcome to Tandem, the shared calendar. ", 4) +
		"\n\nYour code is 482913. It expires in 15 minutes.\n.\nA line with only a dot above.\n"
	err := s.Send(context.Background(), accounts.Mail{To: "zoe@example.com", Subject: "Your Tandem code", Text: text})
	if err != nil {
		t.Fatalf("Send: %v", err)
	}

	got, m := onlyMessage(t, r)
	if got.From != "no-reply@tandem.test" || len(got.To) != 1 || got.To[0] != "zoe@example.com" {
		t.Errorf("envelope = %q -> %q, want no-reply@tandem.test -> [zoe@example.com]", got.From, got.To)
	}
	if got.TLS {
		t.Errorf("message came over TLS, but the relay offered no STARTTLS")
	}
	wantHeaders := map[string]string{
		"From":                      `"Tandem" <no-reply@tandem.test>`,
		"To":                        "<zoe@example.com>",
		"Subject":                   "Your Tandem code",
		"Mime-Version":              "1.0",
		"Content-Type":              "text/plain; charset=utf-8",
		"Content-Transfer-Encoding": "quoted-printable",
	}
	for k, want := range wantHeaders {
		if v := m.Header.Get(k); v != want {
			t.Errorf("header %s = %q, want %q", k, v, want)
		}
	}
	if _, err := m.Header.Date(); err != nil {
		t.Errorf("Date header: %v", err)
	}
	if id := m.Header.Get("Message-Id"); !regexp.MustCompile(`^<[0-9a-f]{32}@tandem\.test>$`).MatchString(id) {
		t.Errorf("Message-ID = %q, want <32 hex digits@tandem.test>", id)
	}

	body := decodedBody(t, m)
	if codes := sixDigits.FindAllString(body, -1); len(codes) != 1 || codes[0] != "482913" {
		t.Errorf("six-digit numbers in body = %q, want exactly [482913]", codes)
	}
	if want := strings.ReplaceAll(text, "\n", "\r\n"); body != want {
		t.Errorf("body = %q, want %q", body, want)
	}
}

func TestSendMessageIDsDiffer(t *testing.T) {
	t.Parallel()
	r := startRelay(t, relayOptions{})
	s := smtp.New(smtp.Config{Addr: r.Addr, From: "no-reply@tandem.test"})
	for range 2 {
		if err := s.Send(context.Background(), accounts.Mail{To: "a@example.com", Subject: "s", Text: "t"}); err != nil {
			t.Fatalf("Send: %v", err)
		}
	}
	var ids []string
	for _, msg := range r.messages() {
		m, err := mail.ReadMessage(bytes.NewReader(msg.Data))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.Header.Get("Message-Id"))
	}
	if len(ids) != 2 || ids[0] == ids[1] {
		t.Errorf("Message-IDs = %q, want two different ids", ids)
	}
}

func TestSendStartTLSAndAuth(t *testing.T) {
	t.Parallel()
	cert, roots := selfSigned(t)
	r := startRelay(t, relayOptions{
		tls:         &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		requireAuth: true,
		user:        "mailer",
		pass:        "s3cret pass",
	})
	s := smtp.New(smtp.Config{
		Addr: r.Addr, Username: "mailer", Password: "s3cret pass",
		From: "Tandem <no-reply@tandem.test>", TLSConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
	})
	if err := s.Send(context.Background(), accounts.Mail{To: "a@example.com", Subject: "Code", Text: "Your code is 004211."}); err != nil {
		t.Fatalf("Send: %v", err)
	}
	if u, p := r.credentials(); u != "mailer" || p != "s3cret pass" {
		t.Errorf("relay saw AUTH PLAIN %q/%q, want mailer/s3cret pass", u, p)
	}
	got, m := onlyMessage(t, r)
	if !got.TLS {
		t.Errorf("message came over a plain link, want STARTTLS")
	}
	if codes := sixDigits.FindAllString(decodedBody(t, m), -1); len(codes) != 1 || codes[0] != "004211" {
		t.Errorf("six-digit numbers in body = %q, want exactly [004211]", codes)
	}
}

func TestSendUnavailable(t *testing.T) {
	t.Parallel()
	cert, roots := selfSigned(t)
	serverTLS := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	msg := accounts.Mail{To: "a@example.com", Subject: "Code", Text: "Your code is 123456."}

	cases := []struct {
		name  string
		relay *relayOptions // nil: nothing listens
		cfg   smtp.Config   // Addr filled in
	}{
		{name: "connection refused", cfg: smtp.Config{From: "no-reply@tandem.test"}},
		{
			name:  "relay requires auth, none configured",
			relay: &relayOptions{tls: serverTLS, requireAuth: true, user: "u", pass: "p"},
			cfg:   smtp.Config{From: "no-reply@tandem.test", TLSConfig: &tls.Config{RootCAs: roots}},
		},
		{
			name:  "wrong password",
			relay: &relayOptions{tls: serverTLS, requireAuth: true, user: "u", pass: "p"},
			cfg:   smtp.Config{From: "no-reply@tandem.test", Username: "u", Password: "nope", TLSConfig: &tls.Config{RootCAs: roots}},
		},
		{
			name:  "untrusted certificate",
			relay: &relayOptions{tls: serverTLS},
			cfg:   smtp.Config{From: "no-reply@tandem.test"}, // system roots do not know the test CA
		},
		{
			name:  "username set but relay offers no AUTH on a plain link",
			relay: &relayOptions{requireAuth: true, user: "u", pass: "p"},
			cfg:   smtp.Config{From: "no-reply@tandem.test", Username: "u", Password: "p"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := tc.cfg
			var r *relay
			if tc.relay != nil {
				r = startRelay(t, *tc.relay)
				cfg.Addr = r.Addr
			} else {
				cfg.Addr = closedAddr(t)
			}
			err := smtp.New(cfg).Send(context.Background(), msg)
			assertUnavailable(t, err)
			if r != nil && len(r.messages()) != 0 {
				t.Errorf("relay accepted %d messages, want none", len(r.messages()))
			}
		})
	}
}

func assertUnavailable(t *testing.T, err error) {
	t.Helper()
	if !core.IsKind(err, core.KindUnavailable) {
		t.Fatalf("err = %v, want kind unavailable", err)
	}
	if e := core.As(err); e.Code != "mail_unavailable" || e.Message != "could not send the e-mail" || errors.Unwrap(e) == nil {
		t.Errorf("err = %+v, want code mail_unavailable, the generic message and a cause", e)
	}
}

func TestSendCancelledWhileRelayIsSilent(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		c, err := l.Accept() // accept and never greet
		if err != nil {
			return
		}
		t.Cleanup(func() { c.Close() })
		cancel()
	}()

	err = smtp.New(smtp.Config{Addr: l.Addr().String(), From: "no-reply@tandem.test"}).
		Send(ctx, accounts.Mail{To: "a@example.com", Subject: "s", Text: "t"})
	assertUnavailable(t, err)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want it to mention context.Canceled", err)
	}
}

func TestSendRefusesBadHeaders(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		mail accounts.Mail
	}{
		{"LF in To", accounts.Mail{To: "a@example.com\nBcc: victim@example.com", Subject: "s"}},
		{"CRLF in To", accounts.Mail{To: "a@example.com\r\nBcc: victim@example.com", Subject: "s"}},
		{"CR in To", accounts.Mail{To: "a@example.com\r", Subject: "s"}},
		{"LF in Subject", accounts.Mail{To: "a@example.com", Subject: "hi\nBcc: victim@example.com"}},
		{"CRLF in Subject", accounts.Mail{To: "a@example.com", Subject: "hi\r\n\r\nforged body"}},
		{"To is not an address", accounts.Mail{To: "not an address", Subject: "s"}},
		{"empty To", accounts.Mail{To: "", Subject: "s"}},
	}
	r := startRelay(t, relayOptions{})
	s := smtp.New(smtp.Config{Addr: r.Addr, From: "no-reply@tandem.test"})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.mail.Text = "Your code is 123456."
			err := s.Send(context.Background(), tc.mail)
			if !core.IsKind(err, core.KindInvalid) {
				t.Fatalf("err = %v, want kind invalid", err)
			}
		})
	}
	t.Cleanup(func() {
		if n := len(r.messages()); n != 0 {
			t.Errorf("relay accepted %d messages, want none", n)
		}
	})
}

func TestSendNonASCIISubject(t *testing.T) {
	t.Parallel()
	r := startRelay(t, relayOptions{})
	s := smtp.New(smtp.Config{Addr: r.Addr, From: "Tändem <no-reply@tandem.test>"})
	subject := "Votre code Tandem — Zoé ✓ 日本語"
	if err := s.Send(context.Background(), accounts.Mail{To: "zoe@example.com", Subject: subject, Text: "Code: 777001"}); err != nil {
		t.Fatalf("Send: %v", err)
	}
	got, m := onlyMessage(t, r)
	for i, c := range got.Data {
		if c >= 0x80 {
			t.Fatalf("raw message has a non-ASCII byte at %d: %q", i, got.Data)
		}
	}
	raw := m.Header.Get("Subject")
	if !strings.HasPrefix(raw, "=?utf-8?q?") {
		t.Errorf("raw Subject = %q, want an RFC 2047 Q-encoded word", raw)
	}
	dec, err := new(mime.WordDecoder).DecodeHeader(raw)
	if err != nil || dec != subject {
		t.Errorf("decoded Subject = %q, %v; want %q", dec, err, subject)
	}
	from, err := m.Header.AddressList("From")
	if err != nil || len(from) != 1 || from[0].Name != "Tändem" || from[0].Address != "no-reply@tandem.test" {
		t.Errorf("From = %v, %v; want Tändem <no-reply@tandem.test>", from, err)
	}
}

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		cfg     smtp.Config
		wantErr bool
	}{
		{"ok", smtp.Config{Addr: "smtp.example.com:587", From: "Tandem <no-reply@example.com>"}, false},
		{"bare from", smtp.Config{Addr: "127.0.0.1:25", From: "no-reply@example.com"}, false},
		{"no port", smtp.Config{Addr: "smtp.example.com", From: "no-reply@example.com"}, true},
		{"empty from", smtp.Config{Addr: "smtp.example.com:587"}, true},
		{"bad from", smtp.Config{Addr: "smtp.example.com:587", From: "Tandem"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if err := tc.cfg.Validate(); (err != nil) != tc.wantErr {
				t.Errorf("Validate() = %v, wantErr %v", err, tc.wantErr)
			}
		})
	}
}

func TestSendMisconfiguredFromIsInternal(t *testing.T) {
	t.Parallel()
	err := smtp.New(smtp.Config{Addr: closedAddr(t), From: "nobody"}).
		Send(context.Background(), accounts.Mail{To: "a@example.com", Subject: "s", Text: "t"})
	if !core.IsKind(err, core.KindInternal) {
		t.Errorf("err = %v, want kind internal", err)
	}
}

// scriptedRelay speaks just enough SMTP for one message, waiting delay
// before each reply, and stops answering for good at the command named
// muteAt ("" never): a relay that is slow, or that goes mute midway.
func scriptedRelay(t *testing.T, delay time.Duration, muteAt string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		r := bufio.NewReader(c)
		reply := func(s string) bool {
			time.Sleep(delay)
			_, err := io.WriteString(c, s+"\r\n")
			return err == nil
		}
		if muteAt == "greeting" || !reply("220 relay.test ESMTP") {
			_, _ = io.Copy(io.Discard, r) // hold the line, say nothing
			return
		}
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			verb := strings.ToUpper(strings.Fields(line + " x")[0])
			if verb == muteAt {
				_, _ = io.Copy(io.Discard, r)
				return
			}
			switch verb {
			case "EHLO", "HELO":
				reply("250 relay.test")
			case "MAIL", "RCPT":
				reply("250 ok")
			case "DATA":
				reply("354 go on")
				for {
					l, err := r.ReadString('\n')
					if err != nil {
						return
					}
					if l == ".\r\n" {
						break
					}
				}
				reply("250 queued")
			case "QUIT":
				reply("221 bye")
				return
			default:
				reply("502 no")
			}
		}
	}()
	return l.Addr().String()
}

// TestSendGivesAMuteRelayUpAfterOneStep: whatever the context allows (here
// no deadline at all), a relay that goes mute at any step is given up after
// the step timeout, and the failure names the step.
func TestSendGivesAMuteRelayUpAfterOneStep(t *testing.T) {
	t.Parallel()
	msg := accounts.Mail{To: "a@example.com", Subject: "Code", Text: "Your code is 123456."}
	for _, step := range []string{"greeting", "EHLO", "MAIL", "RCPT", "DATA"} {
		t.Run(step, func(t *testing.T) {
			t.Parallel()
			addr := scriptedRelay(t, 0, step)
			start := time.Now()
			err := smtp.New(smtp.Config{Addr: addr, From: "no-reply@tandem.test", Timeout: 200 * time.Millisecond}).
				Send(context.Background(), msg)
			took := time.Since(start)
			assertUnavailable(t, err)
			if !strings.Contains(err.Error(), "smtp "+step) || !strings.Contains(err.Error(), "timeout") {
				t.Errorf("err = %v, want a timeout at %s", err, step)
			}
			if took > 5*time.Second { // a hang guard: one step is 200 ms
				t.Errorf("gave up after %v", took)
			}
		})
	}
}

// TestSendStepTimeoutIsPerStep: a relay slower than nothing but quicker than
// the step timeout at every step delivers, though the whole conversation
// takes several step timeouts.
func TestSendStepTimeoutIsPerStep(t *testing.T) {
	t.Parallel()
	addr := scriptedRelay(t, 60*time.Millisecond, "")
	start := time.Now()
	err := smtp.New(smtp.Config{Addr: addr, From: "no-reply@tandem.test", Timeout: 200 * time.Millisecond}).
		Send(context.Background(), accounts.Mail{To: "a@example.com", Subject: "Code", Text: "Your code is 123456."})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 300*time.Millisecond {
		t.Fatalf("the conversation took %v: the relay did not wait before its replies", took)
	}
}
