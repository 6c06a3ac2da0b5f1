// This file holds Load's tests of the variables that each tune one
// feature: write budgets, the premium policy, the push receipt delay, the
// console secret, the connection-code lifetime, memory budgets and the
// stream recheck.

package bootstrap

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"tandem/modules/idempotency"
	"tandem/modules/messages"
)

// TestLoadWriteBudgets: unset, each budget is its module's; the variable
// replaces the ones it names; a bad item is one line naming the variable.
func TestLoadWriteBudgets(t *testing.T) {
	c, err := Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	const defaults = "messages=30/1000,events=20/200,memories=20/200,moods=10/100,idempotency_keys=120/2000"
	if got := c.WriteBudgets.String(); got != defaults || c.effective[writeBudgetsVar] != defaults ||
		c.WriteBudgets.Messages != messages.DefaultBudget || c.WriteBudgets.IdempotencyKeys != idempotency.DefaultBudget {
		t.Fatalf("defaults %s (%+v)", got, c.WriteBudgets)
	}
	c, err = Load(env(map[string]string{writeBudgetsVar: " moods=1/2, messages = 1000000/100000000 "}))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.WriteBudgets.String(); got != "messages=1000000/100000000,events=20/200,memories=20/200,moods=1/2,idempotency_keys=120/2000" ||
		c.WriteBudgets.Moods.Kind != "moods" {
		t.Fatalf("got %s (%+v)", got, c.WriteBudgets)
	}
	for _, bad := range []string{"messages=30", "messages=0/10", "messages=3/-1", "message=3/10", "moods=1/2,moods=3/4",
		"events=a/b", "events=3/10/20"} {
		_, err := Load(env(map[string]string{writeBudgetsVar: bad}))
		if err == nil || strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), writeBudgetsVar+": ") {
			t.Errorf("%s: want one line naming the variable, got %v", bad, err)
		}
	}
}

func TestLoadPremiumPolicy(t *testing.T) {
	c, err := Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	p := c.Premium
	if fmt.Sprint(p.FreeLimits) != "map[imagesPerUpload:4 memories:100 projects:3 storage:1GB]" ||
		fmt.Sprint(p.PremiumLimits) != "map[imagesPerUpload:4 memories:10000 projects:100 storage:100GB]" ||
		strings.Join(p.FreeFeatures, ",") != "basic_memories,messages,events,daily_question" ||
		strings.Join(p.PremiumFeatures, ",") != "unlimited_memories,hd_photos,custom_themes,advanced_stats" {
		t.Fatalf("defaults: %+v", p)
	}
	c, err = Load(env(map[string]string{"TANDEM_LIMITS_FREE": `{"projects": 1}`, "TANDEM_PREMIUM_FEATURES": " a , b.c "}))
	if err != nil || fmt.Sprint(c.Premium.FreeLimits) != "map[projects:1]" || strings.Join(c.Premium.PremiumFeatures, "|") != "a|b.c" {
		t.Fatalf("parsed: %+v %v", c.Premium, err)
	}
}

func TestLoadPushReceiptDelay(t *testing.T) {
	cases := []struct {
		value string
		want  time.Duration
		err   string // "" when accepted
	}{
		{"", 15 * time.Minute, ""},
		{"30m", 30 * time.Minute, ""},
		{"23h59m", 23*time.Hour + 59*time.Minute, ""},
		{"24h", 0, `TANDEM_PUSH_RECEIPT_DELAY: 24h0m0s is not shorter than 24h0m0s, after which Expo's receipts are gone`},
		{"0s", 0, `TANDEM_PUSH_RECEIPT_DELAY: "0s" is not a positive duration such as 30s`},
		{"-5m", 0, `TANDEM_PUSH_RECEIPT_DELAY: "-5m" is not a positive duration such as 30s`},
		{"15", 0, `TANDEM_PUSH_RECEIPT_DELAY: "15" is not a positive duration such as 30s`},
	}
	for _, tc := range cases {
		c, err := Load(env(map[string]string{"TANDEM_PUSH_RECEIPT_DELAY": tc.value}))
		switch {
		case tc.err == "" && (err != nil || c.PushReceiptDelay != tc.want):
			t.Errorf("%q: %v, %v; want %v", tc.value, c.PushReceiptDelay, err, tc.want)
		case tc.err != "" && (err == nil || err.Error() != tc.err):
			t.Errorf("%q: error %v, want %s", tc.value, err, tc.err)
		}
	}
}

// TestLoadConsoleSecret: unset is "" (generated and stored at the start),
// a set secret needs 32 bytes, and a refused one is not repeated in the
// error (it may be nearly the real one).
func TestLoadConsoleSecret(t *testing.T) {
	long := strings.Repeat("s", 32)
	cases := []struct {
		name, value, want string
		ok                bool
	}{
		{name: "unset", value: "", want: "", ok: true},
		{name: "32 bytes", value: long, want: long, ok: true},
		{name: "31 bytes", value: long[:31]},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(env(map[string]string{"TANDEM_CONSOLE_SECRET": tc.value}))
			if tc.ok != (err == nil) || c.ConsoleSecret != tc.want {
				t.Fatalf("got %q, %v", c.ConsoleSecret, err)
			}
			if err != nil && (err.Error() != "TANDEM_CONSOLE_SECRET: has 31 bytes, fewer than 32 (e.g. openssl rand -base64 32)" ||
				strings.Contains(err.Error(), tc.value)) {
				t.Fatalf("error %q", err)
			}
		})
	}
}

// TestLoadConnectionCodeTTL: 7 days unless set; a value that is not a
// positive duration is one error line naming the variable.
func TestLoadConnectionCodeTTL(t *testing.T) {
	for value, want := range map[string]time.Duration{"": 7 * 24 * time.Hour, "72h": 72 * time.Hour, "30m": 30 * time.Minute} {
		c, err := Load(env(map[string]string{"TANDEM_CONNECTION_CODE_TTL": value}))
		if err != nil || c.ConnectionCodeTTL != want {
			t.Fatalf("%q: %v %v, want %v", value, c.ConnectionCodeTTL, err, want)
		}
	}
	for _, value := range []string{"7d", "0s", "-1h", "soon"} {
		_, err := Load(env(map[string]string{"TANDEM_CONNECTION_CODE_TTL": value}))
		if err == nil || strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "TANDEM_CONNECTION_CODE_TTL: ") {
			t.Fatalf("%q: %v", value, err)
		}
	}
}

// TestLoadMemoryBudgets: the password hashes and the image pixels in work at
// once (issue 27); a bad value is one line naming its variable.
func TestLoadMemoryBudgets(t *testing.T) {
	c, err := Load(env(nil))
	if err != nil || c.HashSlots != max(2, runtime.GOMAXPROCS(0)) || c.ImageDecodePixels != 100_000_000 {
		t.Fatalf("defaults: slots %d, pixels %d, %v", c.HashSlots, c.ImageDecodePixels, err)
	}
	c, err = Load(env(map[string]string{"TANDEM_HASH_SLOTS": "3", "TANDEM_IMAGE_DECODE_PIXELS": " 48000000 "}))
	if err != nil || c.HashSlots != 3 || c.ImageDecodePixels != 48_000_000 {
		t.Fatalf("set: slots %d, pixels %d, %v", c.HashSlots, c.ImageDecodePixels, err)
	}
	for _, tc := range []struct{ name, value string }{
		{"TANDEM_HASH_SLOTS", "0"},
		{"TANDEM_HASH_SLOTS", "-2"},
		{"TANDEM_HASH_SLOTS", "four"},
		{"TANDEM_IMAGE_DECODE_PIXELS", "0"},
		{"TANDEM_IMAGE_DECODE_PIXELS", "100M"},
		{"TANDEM_IMAGE_DECODE_PIXELS", "1e8"},
	} {
		_, err := Load(env(map[string]string{tc.name: tc.value}))
		want := tc.name + `: "` + tc.value + `" is not a positive whole number`
		if err == nil || err.Error() != want {
			t.Errorf("%s=%s: got %v, want %s", tc.name, tc.value, err, want)
		}
	}
}

// TestLoadStreamRecheck: 30 s unless set; a value that is not a positive
// duration is one error line naming the variable.
func TestLoadStreamRecheck(t *testing.T) {
	for value, want := range map[string]time.Duration{"": 30 * time.Second, "5s": 5 * time.Second, "2m": 2 * time.Minute} {
		c, err := Load(env(map[string]string{"TANDEM_STREAM_RECHECK": value}))
		if err != nil || c.HTTP.Stream.Recheck != want {
			t.Fatalf("%q: %v %v, want %v", value, c.HTTP.Stream.Recheck, err, want)
		}
	}
	for _, value := range []string{"0s", "-1s", "30"} {
		_, err := Load(env(map[string]string{"TANDEM_STREAM_RECHECK": value}))
		if err == nil || err.Error() != `TANDEM_STREAM_RECHECK: "`+value+`" is not a positive duration such as 30s` {
			t.Fatalf("%q: %v", value, err)
		}
	}
}
