package tests

import (
	"strings"
	"testing"
	"time"
)

// The real binary on settings an operator mistyped: production refuses an
// unknown TANDEM_* variable, naming it and the setting it resembles, in one
// line; development serves and warns; a bad value is one line too.
func TestMistypedSettingsAreCaught(t *testing.T) {
	parallel(t)
	dev := launchTandem(t, map[string]string{"TANDEM_DB": "memory", "TANDEM_BLOBS": "memory", "TANDEM_TYPO": "1"})
	if err := dev.serving(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	// the warning is a start hook of its own: it may follow the first answer of /readyz
	warned := func() bool {
		return strings.Contains(dev.out.String(), "unknown setting ignored: TANDEM_TYPO: not a Tandem setting")
	}
	for deadline := time.Now().Add(10 * time.Second); !warned() && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if !warned() {
		t.Fatalf("development: no warning in %s", dev.out.String())
	}
	for _, tc := range []struct{ mode, env, value, want string }{
		{"production", "TANDEM_ADRR", ":9", "tandem: TANDEM_ADRR: not a Tandem setting; did you mean TANDEM_ADDR?"},
		{"production", "TANDEM_ADDR", "nope", `tandem: TANDEM_ADDR: "nope" is not HOST:PORT (such as :8080 or 127.0.0.1:8080)`},
		{"development", "TANDEM_DB", "mysql:root@tcp(127.0.0.1:1)/tandem", "tandem: sqlstore: connect to mysql: dial tcp 127.0.0.1:1"},
	} {
		env, want := tc.env, tc.want
		p := launchTandem(t, map[string]string{"TANDEM_ENV": tc.mode, "TANDEM_DB": "memory", "TANDEM_BLOBS": "memory",
			"TANDEM_MAIL": "smtp://127.0.0.1:2525", "TANDEM_PUSH": "", env: tc.value})
		select {
		case <-p.exited:
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: still running: %s", env, p.out.String())
		}
		out := strings.TrimSpace(p.out.String())
		if !strings.HasPrefix(out, want) || strings.Count(out, "\n") > 1 || p.cmd.ProcessState.ExitCode() != 1 {
			t.Fatalf("%s: exit %d, output:\n%s", env, p.cmd.ProcessState.ExitCode(), out)
		}
	}
}
