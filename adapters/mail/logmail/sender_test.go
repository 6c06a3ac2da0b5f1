package logmail_test

import (
	"context"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"tandem/adapters/mail/logmail"
	"tandem/core"
	"tandem/modules/accounts"
)

func TestSendLogsTheMail(t *testing.T) {
	t.Parallel()
	obs, logs := observer.New(zapcore.DebugLevel)
	s := logmail.New(zap.New(obs), "Tandem <no-reply@localhost>")

	m := accounts.Mail{To: "zoe@example.com", Subject: "Your Tandem code", Text: "Your code is 482913."}
	if err := s.Send(context.Background(), m); err != nil {
		t.Fatalf("Send: %v", err)
	}

	entries := logs.AllUntimed()
	if len(entries) != 1 {
		t.Fatalf("got %d log entries, want 1", len(entries))
	}
	e := entries[0]
	if e.Level != zapcore.InfoLevel || e.Message != "mail" {
		t.Errorf("entry = %v %q, want info \"mail\"", e.Level, e.Message)
	}
	want := map[string]any{
		"from":    "Tandem <no-reply@localhost>",
		"to":      "zoe@example.com",
		"subject": "Your Tandem code",
		"text":    "Your code is 482913.",
		"code":    "482913",
	}
	got := e.ContextMap()
	if len(got) != len(want) {
		t.Errorf("fields = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("field %s = %v, want %v", k, got[k], v)
		}
	}
}

func TestSendRefusesLineBreaks(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		mail accounts.Mail
	}{
		{"LF in To", accounts.Mail{To: "a@example.com\nBcc: b@example.com", Subject: "s"}},
		{"CR in Subject", accounts.Mail{To: "a@example.com", Subject: "s\rx"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			obs, logs := observer.New(zapcore.DebugLevel)
			err := logmail.New(zap.New(obs), "no-reply@localhost").Send(context.Background(), tc.mail)
			if !core.IsKind(err, core.KindInvalid) {
				t.Errorf("err = %v, want kind invalid", err)
			}
			if logs.Len() != 0 {
				t.Errorf("logged %d entries, want none", logs.Len())
			}
		})
	}
}

func TestSendCodeIsReadableInJSONLog(t *testing.T) {
	t.Parallel()
	var buf strings.Builder
	enc := zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig())
	log := zap.New(zapcore.NewCore(enc, zapcore.AddSync(&buf), zapcore.InfoLevel))
	if err := logmail.New(log, "no-reply@localhost").Send(context.Background(),
		accounts.Mail{To: "a@example.com", Subject: "Code", Text: "Your code is 004211."}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"text":"Your code is 004211."`) {
		t.Errorf("log line %q does not show the code", buf.String())
	}
}

// The code is a field of its own in every language, and only when the text
// holds exactly one: a number of another length, or two codes, give none.
func TestSendLogsTheCodeWhateverTheLanguage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ text, code string }{
		{"Welcome to Tandem! Your verification code is 004213.\n\nIt expires in 15 minutes.", "004213"},
		{"Tandem へようこそ！認証コードは 918273 です。", "918273"},
		{"Ваш код: 551234.", "551234"},
		{"Code:123456", "123456"},
		{"Your password was changed on 2026-11-29.", ""},
		{"1234567 is not a code", ""},
		{"two codes: 111111 and 222222", ""},
	} {
		obs, logs := observer.New(zapcore.DebugLevel)
		if err := logmail.New(zap.New(obs), "t@x").Send(context.Background(), accounts.Mail{To: "a@x.io", Subject: "s", Text: tc.text}); err != nil {
			t.Fatal(err)
		}
		got, ok := logs.AllUntimed()[0].ContextMap()["code"]
		if (tc.code == "" && ok) || (tc.code != "" && got != tc.code) {
			t.Errorf("%q: code %v, want %q", tc.text, got, tc.code)
		}
	}
}
