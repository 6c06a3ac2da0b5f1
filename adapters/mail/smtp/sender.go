// Package smtp delivers accounts mail through an SMTP relay with the standard
// net/smtp client: STARTTLS whenever the relay offers it, AUTH PLAIN when a
// user name is configured, and a quoted-printable UTF-8 text body.
package smtp

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	netsmtp "net/smtp"
	"strings"
	"sync"
	"time"

	"tandem/core"
	"tandem/modules/accounts"
)

// DefaultTimeout is the step timeout when Config.Timeout is zero.
const DefaultTimeout = 10 * time.Second

// sessionTimeout bounds a whole send whose context has no deadline, against
// a relay that answers each step just in time, forever.
const sessionTimeout = time.Minute

// Config says where and as whom mail is sent.
type Config struct {
	Addr     string // host:port of the relay
	Username string // "" sends without AUTH
	Password string
	From     string // RFC 5322 address, e.g. "Tandem <no-reply@localhost>"
	// TLSConfig is used for STARTTLS. nil verifies the relay against the
	// system roots with ServerName taken from Addr; an empty ServerName is
	// filled the same way.
	TLSConfig *tls.Config
	// Timeout bounds the dial and every read and write of the conversation
	// (so each command and its reply), whatever the context allows: a relay
	// that accepts and then says nothing is given up after one Timeout.
	// Zero is DefaultTimeout.
	Timeout time.Duration
}

// Validate reports a From or Addr that could never work, so bootstrap can
// fail at start-up instead of at the first sign-up.
func (c Config) Validate() error {
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		return fmt.Errorf("smtp: address %q is not host:port: %w", c.Addr, err)
	}
	if _, err := parseFrom(c.From); err != nil {
		return err
	}
	return nil
}

var _ accounts.Mailer = (*Sender)(nil)

// Sender sends each message on its own connection: sign-up and reset mail is
// rare enough that pooling connections would only add failure modes.
type Sender struct {
	cfg Config
}

// New returns a Sender for cfg. It does not connect; call cfg.Validate first
// to catch a bad configuration early.
func New(cfg Config) *Sender {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	return &Sender{cfg: cfg}
}

// Send delivers m. A line break in To or Subject is refused as
// core.KindInvalid (header injection); a relay that cannot be reached or
// refuses the message gives core.KindUnavailable, code mail_unavailable.
func (s *Sender) Send(ctx context.Context, m accounts.Mail) error {
	if strings.ContainsAny(m.To, "\r\n") || strings.ContainsAny(m.Subject, "\r\n") {
		return core.Invalid("invalid_request", "smtp.mailRecipientSubjectNotContain", "mail recipient and subject must not contain line breaks")
	}
	to, err := mail.ParseAddress(m.To)
	if err != nil {
		return core.Invalid("invalid_request", "smtp.mailRecipientNotValidAddress", "mail recipient is not a valid address")
	}
	from, err := parseFrom(s.cfg.From)
	if err != nil {
		return core.Internal(err)
	}
	host, _, err := net.SplitHostPort(s.cfg.Addr)
	if err != nil {
		return core.Internal(fmt.Errorf("smtp: address %q is not host:port: %w", s.cfg.Addr, err))
	}
	msg, err := compose(from, to, m, time.Now())
	if err != nil {
		return core.Internal(err)
	}
	if err := s.deliver(ctx, host, from.Address, to.Address, msg); err != nil {
		return core.Unavailable("mail_unavailable", "smtp.couldNotSendMail", "could not send the e-mail").Wrap(err)
	}
	return nil
}

// deliver runs one SMTP session. Every read and write has the step timeout
// (Config.Timeout), the context's deadline (or sessionTimeout) bounds the
// whole conversation, and cancelling the context interrupts it at once.
func (s *Sender) deliver(ctx context.Context, host, from, to string, msg []byte) (err error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, sessionTimeout)
		defer cancel()
	}
	d := net.Dialer{Timeout: s.cfg.Timeout}
	raw, err := d.DialContext(ctx, "tcp", s.cfg.Addr)
	if err != nil {
		return fmt.Errorf("smtp dial: %w", err)
	}
	end, _ := ctx.Deadline()
	conn := &stepConn{Conn: raw, step: s.cfg.Timeout, end: end}
	stop := context.AfterFunc(ctx, conn.kill)
	defer func() {
		if !stop() && err != nil {
			err = fmt.Errorf("%w (%w)", err, context.Cause(ctx))
		}
	}()

	c, err := netsmtp.NewClient(conn, host) // reads the greeting
	if err != nil {
		conn.Close()
		return fmt.Errorf("smtp greeting: %w", err)
	}
	defer c.Close()
	if err := c.Hello("localhost"); err != nil {
		return fmt.Errorf("smtp EHLO: %w", err)
	}
	if ok, _ := c.Extension("STARTTLS"); ok {
		if err := c.StartTLS(s.tlsConfig(host)); err != nil {
			return fmt.Errorf("smtp STARTTLS: %w", err)
		}
	}
	if s.cfg.Username != "" {
		// PlainAuth refuses to send the password over a plain link to
		// anything but localhost, which is the behaviour we want.
		if err := c.Auth(netsmtp.PlainAuth("", s.cfg.Username, s.cfg.Password, host)); err != nil {
			return fmt.Errorf("smtp AUTH: %w", err)
		}
	}
	if err := c.Mail(from); err != nil {
		return fmt.Errorf("smtp MAIL: %w", err)
	}
	if err := c.Rcpt(to); err != nil {
		return fmt.Errorf("smtp RCPT: %w", err)
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("smtp DATA: %w", err)
	}
	if _, err := w.Write(msg); err != nil {
		return fmt.Errorf("smtp DATA: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("smtp DATA: %w", err)
	}
	// The relay accepted the message when DATA ended; a failed QUIT must not
	// make the caller send the code again.
	_ = c.Quit()
	return nil
}

// stepConn gives every read and write its own deadline, the step timeout
// from its start but never past the session's end, so a relay that goes
// mute at any step is given up after one step. Once killed (the context
// ended), every read and write fails at once.
type stepConn struct {
	net.Conn
	step time.Duration
	end  time.Time

	mu   sync.Mutex
	dead bool
}

// arm sets the deadline of the next read or write through set.
func (c *stepConn) arm(set func(time.Time) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead {
		return set(time.Unix(1, 0))
	}
	d := time.Now().Add(c.step)
	if !c.end.IsZero() && c.end.Before(d) {
		d = c.end
	}
	return set(d)
}

func (c *stepConn) Read(b []byte) (int, error) {
	if err := c.arm(c.Conn.SetReadDeadline); err != nil {
		return 0, err
	}
	return c.Conn.Read(b)
}

func (c *stepConn) Write(b []byte) (int, error) {
	if err := c.arm(c.Conn.SetWriteDeadline); err != nil {
		return 0, err
	}
	return c.Conn.Write(b)
}

// kill makes every blocked and later read and write fail: a deadline in the
// past wakes them at once, and arm keeps it in the past.
func (c *stepConn) kill() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dead = true
	_ = c.Conn.SetDeadline(time.Unix(1, 0))
}

func (s *Sender) tlsConfig(host string) *tls.Config {
	if s.cfg.TLSConfig == nil {
		return &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}
	}
	cfg := s.cfg.TLSConfig.Clone()
	if cfg.ServerName == "" {
		cfg.ServerName = host
	}
	return cfg
}

func parseFrom(s string) (*mail.Address, error) {
	a, err := mail.ParseAddress(s)
	if err != nil {
		return nil, fmt.Errorf("smtp: sender %q is not an address: %w", s, err)
	}
	return a, nil
}

// compose writes the message with CRLF line ends; the DATA writer dot-stuffs
// it and ends the last line.
func compose(from, to *mail.Address, m accounts.Mail, now time.Time) ([]byte, error) {
	id, err := messageID(from.Address)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	header := func(k, v string) { b.WriteString(k + ": " + v + "\r\n") }
	header("From", from.String())
	header("To", to.String())
	header("Subject", mime.QEncoding.Encode("utf-8", m.Subject))
	header("Date", now.Format(time.RFC1123Z))
	header("Message-ID", id)
	header("MIME-Version", "1.0")
	header("Content-Type", "text/plain; charset=utf-8")
	header("Content-Transfer-Encoding", "quoted-printable")
	b.WriteString("\r\n")
	qp := quotedprintable.NewWriter(&b)
	if _, err := qp.Write([]byte(m.Text)); err != nil {
		return nil, fmt.Errorf("smtp: encode body: %w", err)
	}
	if err := qp.Close(); err != nil {
		return nil, fmt.Errorf("smtp: encode body: %w", err)
	}
	return b.Bytes(), nil
}

// messageID is random so that it reveals nothing, at the sender's domain as
// RFC 5322 recommends.
func messageID(fromAddr string) (string, error) {
	domain := fromAddr[strings.LastIndexByte(fromAddr, '@')+1:]
	if domain == "" {
		return "", errors.New("smtp: sender address has no domain")
	}
	var r [16]byte
	if _, err := rand.Read(r[:]); err != nil {
		return "", fmt.Errorf("smtp: message id: %w", err)
	}
	return "<" + hex.EncodeToString(r[:]) + "@" + domain + ">", nil
}
