package smtp_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"mime"
	"net/mail"
	"regexp"
	"strings"
	"testing"

	"tandem/adapters/mail/smtp"
	"tandem/core"
	"tandem/modules/accounts"
)

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
