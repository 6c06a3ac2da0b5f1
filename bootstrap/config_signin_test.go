// This file holds Load's tests of sign-in: passkeys and Apple app ids,
// the providers of TANDEM_SIGNIN, and Apple's team key.

package bootstrap

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tandem/adapters/signin/signintest"
)

// TestLoadPasskeys: each bad TANDEM_PASSKEYS, TANDEM_APPLE_APP_IDS and
// TANDEM_ANDROID_APPS value is one line naming it; good ones are parsed.
func TestLoadPasskeys(t *testing.T) {
	fp := "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"
	for _, tc := range []struct {
		name string
		vars map[string]string
		err  string
	}{
		{"unset: off", map[string]string{}, ""},
		{"a web and an app origin", map[string]string{"TANDEM_PASSKEYS": "rp=example.com&name=Tandem&origin=https://example.com&origin=android:apk-key-hash:abc"}, ""},
		{"no rp", map[string]string{"TANDEM_PASSKEYS": "origin=https://example.com"}, "TANDEM_PASSKEYS: rp must be"},
		{"a URL as rp", map[string]string{"TANDEM_PASSKEYS": "rp=https://example.com&origin=https://example.com"}, "TANDEM_PASSKEYS: rp must be"},
		{"no origin", map[string]string{"TANDEM_PASSKEYS": "rp=example.com"}, "TANDEM_PASSKEYS: no origin"},
		{"an unknown key", map[string]string{"TANDEM_PASSKEYS": "rp=example.com&origin=https://example.com&timeout=5"}, "TANDEM_PASSKEYS: unknown key"},
		{"apple ids", map[string]string{"TANDEM_APPLE_APP_IDS": "ABCDE12345.app.tandem, ABCDE12345.app.tandem.beta"}, ""},
		{"an apple id without team", map[string]string{"TANDEM_APPLE_APP_IDS": "app.tandem"}, "TANDEM_APPLE_APP_IDS: \"app.tandem\""},
		{"android apps", map[string]string{"TANDEM_ANDROID_APPS": "package=app.tandem&sha256=" + fp + "&sha256=" + strings.ToLower(fp) + ",package=app.tandem.beta&sha256=" + fp}, ""},
		{"an android app without fingerprint", map[string]string{"TANDEM_ANDROID_APPS": "package=app.tandem"}, "TANDEM_ANDROID_APPS: \"package=app.tandem\""},
		{"a bad package", map[string]string{"TANDEM_ANDROID_APPS": "package=tandem&sha256=" + fp}, "TANDEM_ANDROID_APPS: \"tandem\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Load(env(tc.vars))
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.err != "" && (err == nil || strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), tc.err)):
				t.Fatalf("want one line %q..., got %v", tc.err, err)
			case tc.name == "android apps":
				apps := cfg.HTTP.WellKnown.AndroidApps
				if len(apps) != 2 || apps[0].Package != "app.tandem" || len(apps[0].SHA256) != 2 || apps[0].SHA256[1] != fp {
					t.Fatalf("parsed %+v", apps)
				}
			case tc.name == "a web and an app origin":
				if cfg.Passkeys == nil || cfg.Passkeys.RPID != "example.com" || len(cfg.Passkeys.Origins) != 2 {
					t.Fatalf("parsed %+v", cfg.Passkeys)
				}
			}
		})
	}
}

func TestLoadSignIn(t *testing.T) {
	for value, want := range map[string]string{
		"apple?client=a,apple?client=b":  `TANDEM_SIGNIN: "apple" is not apple?client=ID or google?client=ID, or is listed twice`,
		"facebook?client=a":              `TANDEM_SIGNIN: "facebook" is not apple?client=ID or google?client=ID, or is listed twice`,
		"google?client=a&secret=b":       `TANDEM_SIGNIN: google has no parameter "secret"`,
		"google?client=a&jwks=ftp://x/y": `TANDEM_SIGNIN: google jwks="ftp://x/y" is not an http(s) URL`,
	} {
		_, err := Load(env(map[string]string{"TANDEM_SIGNIN": value, "TANDEM_ENV": "development"}))
		if err == nil || err.Error() != want {
			t.Errorf("%s: want %q, got %v", value, want, err)
		}
	}
	cfg, err := Load(env(map[string]string{"TANDEM_SIGNIN": "apple?client=a&client=b, google?client=g"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.SignIn) != 2 || cfg.SignIn[0].Name != "apple" || len(cfg.SignIn[0].Clients) != 2 ||
		cfg.SignIn[1].Name != "google" || cfg.SignIn[1].Clients[0] != "g" || cfg.SignIn[1].KeysURL != "" {
		t.Fatalf("%+v", cfg.SignIn)
	}
}

// TestLoadAppleTeamKey: Apple's team key in TANDEM_SIGNIN is all three of
// team, key and keyfile or none, each checked (the .p8 file read and
// parsed now), endpoint= is development's, and the key needs
// TANDEM_ENCRYPTION_KEY; each fault is one line naming the variable.
func TestLoadAppleTeamKey(t *testing.T) {
	_, keyfile := signintest.NewTeamKey(t)
	notPEM := filepath.Join(t.TempDir(), "not.p8")
	if err := os.WriteFile(notPEM, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	key1 := base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))
	key2 := base64.RawURLEncoding.EncodeToString([]byte("fedcba9876543210fedcba9876543210"))
	team := "apple?client=com.example.tandem&team=ABCDE12345&key=KEY1234567&keyfile=" + keyfile
	for _, tc := range []struct {
		name string
		vars map[string]string
		err  string // "" when accepted
	}{
		{"the team key with an encryption key", map[string]string{"TANDEM_SIGNIN": team, "TANDEM_ENCRYPTION_KEY": key1 + "," + key2}, ""},
		{"no team key needs no encryption key", map[string]string{"TANDEM_SIGNIN": "apple?client=a"}, ""},
		{"the team key without an encryption key", map[string]string{"TANDEM_SIGNIN": team},
			"TANDEM_ENCRYPTION_KEY: required with Apple's team key in TANDEM_SIGNIN: Apple's refresh tokens are kept " +
				"encrypted under it (openssl rand -base64 32; keep it out of the database and its backups)"},
		{"a short encryption key", map[string]string{"TANDEM_SIGNIN": team, "TANDEM_ENCRYPTION_KEY": "c2hvcnQ="},
			"TANDEM_ENCRYPTION_KEY: key 1 is not 32 bytes in base64 (openssl rand -base64 32)"},
		{"an encryption key listed twice", map[string]string{"TANDEM_SIGNIN": team, "TANDEM_ENCRYPTION_KEY": key1 + "," + key1},
			"TANDEM_ENCRYPTION_KEY: sealing: key 2 is listed twice"},
		{"a team without its key", map[string]string{"TANDEM_SIGNIN": "apple?client=a&team=ABCDE12345", "TANDEM_ENCRYPTION_KEY": key1},
			"TANDEM_SIGNIN: apple needs all of team=TEAMID, key=KEYID and keyfile=PATH (the key's .p8 file) for Apple's token revocation, or none"},
		{"a bad team id", map[string]string{"TANDEM_SIGNIN": strings.Replace(team, "ABCDE12345", "abc", 1), "TANDEM_ENCRYPTION_KEY": key1},
			`TANDEM_SIGNIN: apple team="abc" is not a team id (10 letters and digits, in Apple's Membership details)`},
		{"a bad key id", map[string]string{"TANDEM_SIGNIN": strings.Replace(team, "KEY1234567", "K-1", 1), "TANDEM_ENCRYPTION_KEY": key1},
			`TANDEM_SIGNIN: apple key="K-1" is not a key id (10 letters and digits, beside the key in Certificates, Identifiers & Profiles)`},
		{"a key file that is not there", map[string]string{"TANDEM_SIGNIN": strings.Replace(team, keyfile, "/nonexistent/AuthKey.p8", 1),
			"TANDEM_ENCRYPTION_KEY": key1}, "TANDEM_SIGNIN: apple keyfile=/nonexistent/AuthKey.p8: open /nonexistent/AuthKey.p8: no such file or directory"},
		{"a key file that is not a key", map[string]string{"TANDEM_SIGNIN": strings.Replace(team, keyfile, notPEM, 1), "TANDEM_ENCRYPTION_KEY": key1},
			"TANDEM_SIGNIN: apple keyfile=" + notPEM + ": no PEM block (Apple's .p8 key file is one)"},
		{"a replaced Apple endpoint in production", map[string]string{"TANDEM_SIGNIN": team + "&endpoint=http://127.0.0.1:1", "TANDEM_ENCRYPTION_KEY": key1},
			"TANDEM_SIGNIN: apple endpoint= replaces Apple's token and revoke endpoints: it needs TANDEM_ENV=development"},
		{"a replaced Apple endpoint in development", map[string]string{"TANDEM_SIGNIN": team + "&endpoint=http://127.0.0.1:1",
			"TANDEM_ENCRYPTION_KEY": key1, "TANDEM_ENV": "development"}, ""},
		{"an endpoint that is no URL", map[string]string{"TANDEM_SIGNIN": team + "&endpoint=ftp://x", "TANDEM_ENCRYPTION_KEY": key1,
			"TANDEM_ENV": "development"}, `TANDEM_SIGNIN: apple endpoint="ftp://x" is not an http(s) URL`},
		{"an endpoint without the team key", map[string]string{"TANDEM_SIGNIN": "apple?client=a&endpoint=http://127.0.0.1:1", "TANDEM_ENV": "development"},
			"TANDEM_SIGNIN: apple endpoint= needs the team key: team=TEAMID&key=KEYID&keyfile=PATH"},
		{"google has no team key", map[string]string{"TANDEM_SIGNIN": "google?client=g&team=ABCDE12345"},
			`TANDEM_SIGNIN: google has no parameter "team"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(env(tc.vars))
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("want %q, got %v", tc.err, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.name != "the team key with an encryption key" {
				return
			}
			if p := c.SignIn[0]; p.Team == nil || p.Team.Team != "ABCDE12345" || p.Team.KeyID != "KEY1234567" || p.Team.Key == nil ||
				p.Team.BaseURL != "" || len(c.EncryptionKeys) != 2 || string(c.EncryptionKeys[1]) != "fedcba9876543210fedcba9876543210" {
				t.Fatalf("parsed %+v, keys %d", p.Team, len(c.EncryptionKeys))
			}
			if got := masked("TANDEM_ENCRYPTION_KEY", key1); got != "***" { // tandem config
				t.Fatalf("TANDEM_ENCRYPTION_KEY printed as %q", got)
			}
		})
	}
}
