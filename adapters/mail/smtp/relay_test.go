// This file holds the in-process SMTP relay the sender's tests deliver to
// (recording what it accepts, with STARTTLS and AUTH), its certificate, a
// closed address, and the readers of what it received.

package smtp_test

import (
	"bytes"
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
	"mime/quotedprintable"
	"net"
	"net/mail"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	gosmtp "github.com/emersion/go-smtp"
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
