// This file holds the tests of relays that fail or stall: unreachable or
// refusing relays, a cancelled send, a mute relay, and the per-step
// timeout.

package smtp_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"tandem/adapters/mail/smtp"
	"tandem/core"
	"tandem/modules/accounts"
)

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
