package bootstrap

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// Every command answers --help with its own line and exits 0, without
// reading the configuration (a broken environment must not hide help), and
// serve --help never starts a server.
func TestEveryCommandHasHelp(t *testing.T) {
	t.Parallel()
	broken := env(map[string]string{"TANDEM_DB": "nope", "TANDEM_ADDR": ":8080"})
	for _, c := range commands {
		for _, flag := range []string{"--help", "-h"} {
			var out bytes.Buffer
			if err := Run(context.Background(), []string{c.name, flag}, broken, &out); err != nil {
				t.Fatalf("%s %s: %v", c.name, flag, err)
			}
			if !strings.HasPrefix(out.String(), "usage: tandem "+c.name) || strings.Count(out.String(), "\n") > 2 {
				t.Fatalf("%s %s: %q", c.name, flag, out.String())
			}
		}
	}
	var out bytes.Buffer
	if err := Run(context.Background(), []string{"admin", "grant", "--help"}, broken, &out); err != nil ||
		!strings.Contains(out.String(), "version-policy") {
		t.Fatalf("admin grant --help: %q %v", out.String(), err)
	}
}

func TestVersionCommand(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := Run(context.Background(), []string{"version"}, env(map[string]string{"TANDEM_DB": "nope"}), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || lines[0] != "tandem "+Version || !strings.HasPrefix(lines[1], "commit ") || lines[2] != runtime.Version() {
		t.Fatalf("version: %q", out.String())
	}
}

func TestHealthcheckCommand(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var status atomic.Int32
	status.Store(http.StatusOK)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		w.WriteHeader(int(status.Load()))
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	vars := map[string]string{"TANDEM_DB": "memory", "TANDEM_BLOBS": "memory", "TANDEM_MAIL": "memory",
		"TANDEM_ENV": "development", "TANDEM_ADDR": ":" + port}
	run := func() (string, error) {
		var out bytes.Buffer
		err := Run(context.Background(), []string{"healthcheck"}, env(vars), &out)
		return out.String(), err
	}
	if out, err := run(); err != nil || out != "ready\n" {
		t.Fatalf("ready: %q %v", out, err)
	}
	status.Store(http.StatusServiceUnavailable) // a draining or broken server
	if _, err := run(); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("not ready: %v", err)
	}
	srv.Close()
	if _, err := run(); err == nil {
		t.Fatal("nothing listening, yet healthy")
	}
}

// make build (and make run) stamp the version and the commit, so that
// `tandem version` names the commit where the go command has no VCS data
// to stamp (go run, a tarball, a container build). Read from make's plan
// (make -n) rather than a build of the whole binary in the suite; the
// stamped binary itself is checked by make image-smoke (commit = label) and
// TestVersionPrintsTheStampedCommit.
func TestMakeBuildStampsTheCommit(t *testing.T) {
	t.Parallel()
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatalf("git rev-parse HEAD (the tests run in a checkout): %v", err)
	}
	for _, target := range []string{"build", "run"} {
		plan, err := exec.Command("make", "-s", "-n", "-C", "..", target).CombinedOutput()
		if err != nil {
			t.Fatalf("make -n %s: %v\n%s", target, err, plan)
		}
		stamp := regexp.MustCompile(`-X tandem/bootstrap\.Version=(\S+) -X tandem/bootstrap\.Commit=([0-9a-f]+)(\+dirty)?\b`).FindSubmatch(plan)
		if stamp == nil || string(stamp[2]) != strings.TrimSpace(string(head)) || string(stamp[1]) == "dev" {
			t.Fatalf("make %s does not stamp the version and commit %s:\n%s", target, head, plan)
		}
	}
}

// Commit, when the build stamped it, is the revision printed.
func TestVersionPrintsTheStampedCommit(t *testing.T) {
	saved := Commit
	t.Cleanup(func() { Commit = saved })
	Commit = "0123abc+dirty"
	if b := Build(); b.Revision != "0123abc+dirty" {
		t.Fatalf("revision %q", b.Revision)
	}
}

// Every command is in the lists people read: docs/operations.md's table
// and the README's command list.
func TestEveryCommandIsDocumented(t *testing.T) {
	t.Parallel()
	ops, err := os.ReadFile("../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range commands {
		if !strings.Contains(string(ops), "`tandem "+c.name) {
			t.Errorf("docs/operations.md's command table has no row for tandem %s", c.name)
		}
		if !strings.Contains(string(readme), "tandem "+c.name) {
			t.Errorf("README.md does not name tandem %s", c.name)
		}
	}
}
