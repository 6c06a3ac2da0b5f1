package bootstrap

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/fx"

	"tandem/adapters/mail/memmail"
	"tandem/modules/accounts"
)

func TestRunCommands(t *testing.T) {
	ctx := context.Background()
	vars := map[string]string{"TANDEM_DB": "sqlite:" + filepath.Join(t.TempDir(), "t.db"), "TANDEM_MAIL": "memory",
		"TANDEM_LOG_LEVEL": "fatal", "TANDEM_BLOBS": "memory", "TANDEM_ENV": "development"}
	run := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := Run(ctx, args, env(vars), &out)
		return out.String(), err
	}

	if out, err := run("migrate"); err != nil || !strings.Contains(out, "migrations applied") {
		t.Fatalf("migrate: %q %v", out, err)
	}
	if _, err := run("admin", "grant", "ghost@x.io"); err == nil || !strings.Contains(err.Error(), "user not found") {
		t.Fatalf("grant to nobody: %v", err)
	}

	// an account made through the service, then granted through the command
	cfg, err := Load(env(vars))
	if err != nil {
		t.Fatal(err)
	}
	var acc *accounts.Service
	var sender *accounts.Sender
	var outbox *memmail.Outbox
	app := New(cfg, fx.NopLogger, fx.Populate(&acc, &sender, &outbox)) // built, not started: no jobs run
	if err := app.Err(); err != nil {
		t.Fatal(err)
	}
	id, err := acc.SignUp(ctx, "ann@x.io", "password1", accounts.Client{})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := sender.SendDue(ctx); n != 1 || err != nil {
		t.Fatalf("sent %d: %v", n, err)
	}
	v, err := acc.VerifyEmail(ctx, id, outbox.Code("ann@x.io"), accounts.Client{})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := run("admin", "grant", "ANN@x.io"); err != nil || !strings.Contains(out, "granted") {
		t.Fatalf("grant: %q %v", out, err)
	}
	if p, err := acc.Authenticate(ctx, v.Token); err != nil || !p.Admin {
		t.Fatalf("not admin after grant: %+v %v", p, err)
	}
	if out, err := run("admin", "revoke", "ann@x.io"); err != nil || !strings.Contains(out, "revoked") {
		t.Fatalf("revoke: %q %v", out, err)
	}
	expectCLIAudit(t, vars, []string{"admin.grant email:ghost@x.io failed", "admin.grant user:" + id + " done",
		"admin.revoke user:" + id + " done"})

	if _, err := run("admin", "promote", "x"); err == nil {
		t.Fatal("bad admin verb accepted")
	}
	for _, args := range [][]string{{"backup"}, {"restore"}, {"backup", "a", "b"}} {
		if _, err := run(args...); err == nil || !strings.HasPrefix(err.Error(), "usage: tandem "+args[0]+" DIR") {
			t.Fatalf("%v: %v", args, err)
		}
	}
	if out, err := run("help"); err != nil || !strings.Contains(out, "backup DIR") || !strings.Contains(out, "restore DIR") {
		t.Fatalf("help: %q %v", out, err)
	}
	if _, err := run("dance"); err == nil || !strings.Contains(err.Error(), "unknown command") {
		t.Fatalf("unknown command: %v", err)
	}
	vars["TANDEM_DB"] = "oracle:x"
	if _, err := run("migrate"); err == nil || !strings.HasPrefix(err.Error(), "TANDEM_DB: ") {
		t.Fatalf("bad config: %v", err)
	}
}

// TestOpenAPICommand prints the document /openapi.json serves, with this
// deployment's servers: make lint-api lints exactly that.
func TestOpenAPICommand(t *testing.T) {
	var out bytes.Buffer
	vars := map[string]string{"TANDEM_PUBLIC_URL": "https://api.tandem.test/"}
	if err := Run(context.Background(), []string{"openapi"}, env(vars), &out); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		OpenAPI string              `json:"openapi"`
		Servers []map[string]string `json:"servers"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1") || len(doc.Servers) != 1 || doc.Servers[0]["url"] != "https://api.tandem.test" {
		t.Fatalf("openapi %q, servers %v", doc.OpenAPI, doc.Servers)
	}
}

// A misspelt variable (TANDEM_ADRR) is a plain stderr line before anything
// starts, and when the start then fails (the port it meant to leave is
// busy) the failure names it beside the cause.
func TestMisspeltVariableIsWarnedFirstAndNamedWhenStartFails(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	vars := map[string]string{"TANDEM_DB": "memory", "TANDEM_MAIL": "memory", "TANDEM_BLOBS": "memory", "TANDEM_PUSH": "memory",
		"TANDEM_ENV": "development", "TANDEM_METRICS_ADDR": "", "TANDEM_LOG_LEVEL": "fatal", "TANDEM_ADDR": busy.Addr().String()}
	environ := []string{"TANDEM_ADRR=127.0.0.1:0", "TANDEM_ADDR=" + vars["TANDEM_ADDR"], "HOME=/root"}
	var stdout, stderr bytes.Buffer
	err = run(context.Background(), []string{"serve"}, env(vars), environ, Stdio{Out: &stdout, Err: &stderr})
	if err == nil {
		t.Fatal("started on a busy port")
	}
	if want := "tandem: warning: TANDEM_ADRR: not a Tandem setting; did you mean TANDEM_ADDR?\n"; stderr.String() != want {
		t.Fatalf("stderr %q, want %q", stderr.String(), want)
	}
	lines := strings.Split(err.Error(), "\n")
	if !strings.Contains(lines[0], "address already in use") || lines[len(lines)-1] != "TANDEM_ADRR: not a Tandem setting; did you mean TANDEM_ADDR?" {
		t.Fatalf("the failure does not name the suspect:\n%s", err)
	}

	// without the typo, the failure is the cause alone and nothing is warned
	stderr.Reset()
	err = run(context.Background(), []string{"serve"}, env(vars), environ[1:], Stdio{Out: &stdout, Err: &stderr})
	if err == nil || strings.Contains(err.Error(), "TANDEM_ADRR") || stderr.Len() != 0 {
		t.Fatalf("without the typo: %v, stderr %q", err, stderr.String())
	}
}
