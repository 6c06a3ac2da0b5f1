package bootstrap

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.uber.org/fx"

	"tandem/core"
	adminmod "tandem/modules/admin"
	"tandem/modules/versions"
)

func TestVersionPolicyCommand(t *testing.T) {
	ctx := context.Background()
	vars := map[string]string{"TANDEM_DB": "sqlite:" + filepath.Join(t.TempDir(), "t.db"), "TANDEM_MAIL": "memory",
		"TANDEM_LOG_LEVEL": "fatal", "TANDEM_BLOBS": "memory", "TANDEM_ENV": "development"}
	run := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := Run(ctx, append([]string{"admin", "version-policy"}, args...), env(vars), &out)
		return out.String(), err
	}
	set := []string{"set", "ios", "-min", "1.2", "-recommended", "1.4.0", "-latest", "v1.5.0+20",
		"-url", "https://apps.apple.com/app/id1", "-message", "Please update", "-notes", "Faster.", "-deprecation", "2030-01-31"}

	if _, err := run("get", "ios"); err == nil || err.Error() != "version-policy get ios: no version policy for ios" {
		t.Fatalf("get before set: %v", err)
	}
	out, err := run(set...)
	if err != nil || !strings.HasPrefix(out, "ios: min 1.2.0, recommended 1.4.0, latest 1.5.0+20\n") ||
		!strings.Contains(out, "deprecation: 2030-01-31T00:00:00Z") || !strings.Contains(out, "notes: Faster.") {
		t.Fatalf("set: %q %v", out, err)
	}
	if got, err := run("get", "ios"); err != nil || got != out {
		t.Fatalf("get: %q %v", got, err)
	}

	// the stored policy is what the service checks against
	cfg, err := Load(env(vars))
	if err != nil {
		t.Fatal(err)
	}
	var svc *versions.Service
	if err := New(cfg, fx.NopLogger, fx.Populate(&svc)).Err(); err != nil {
		t.Fatal(err)
	}
	r, err := svc.Check(ctx, versions.Client{Platform: "ios", CurrentVersion: "1.1.0"})
	if err != nil || !r.UpdateRequired() || r.DownloadURL != "https://apps.apple.com/app/id1" {
		t.Fatalf("check: %+v %v", r, err)
	}

	refused := []struct {
		args []string
		want string
	}{
		{[]string{"set", "ios", "-min", "2.0.0", "-recommended", "1.0.0", "-latest", "3.0.0", "-url", "https://x.io", "-message", "m"},
			"version-policy set ios: versions must satisfy minRequiredVersion ≤ recommendedVersion ≤ latestVersion"},
		{[]string{"set", "web", "-min", "1.0.0", "-recommended", "1.0.0", "-latest", "1.0.0", "-url", "http://x.io", "-message", "m"},
			"version-policy set web: downloadUrl must be an https URL of at most 2048 characters"},
		{[]string{"set", "palm", "-min", "1.0.0"}, "version-policy set palm: platform must be ios, android or web"},
		{[]string{"set", "ios", "-deprecation", "soon"}, `version-policy: -deprecation "soon" is not YYYY-MM-DD or an RFC 3339 time`},
		{[]string{"set", "ios", "-colour", "red"}, versionPolicyUsage},
		{[]string{"set", "ios", "extra"}, versionPolicyUsage},
		{[]string{"get"}, versionPolicyUsage},
		{[]string{"get", "ios", "more"}, versionPolicyUsage},
		{[]string{"delete", "ios"}, versionPolicyUsage},
	}
	for _, tc := range refused {
		if _, err := run(tc.args...); err == nil || err.Error() != tc.want {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
	if got, err := run("get", "ios"); err != nil || got != out {
		t.Fatalf("a refused set changed the policy: %q %v", got, err)
	}
	// Every set is in the audit log, by "cli"; a refused one as failed
	// (a bad platform or bad flags never get as far as a change).
	expectCLIAudit(t, vars, []string{"version_policy.set platform:ios done", "version_policy.set platform:ios failed",
		"version_policy.set platform:web failed"})
}

// expectCLIAudit checks the audit log of the database in vars: the entries
// as "action target outcome" in any order (the commands ran within the same
// millisecond, maybe), each by the command line.
func expectCLIAudit(t *testing.T, vars map[string]string, want []string) {
	t.Helper()
	cfg, err := Load(env(vars))
	if err != nil {
		t.Fatal(err)
	}
	var audit *adminmod.Service
	if err := New(cfg, fx.NopLogger, fx.Populate(&audit)).Err(); err != nil {
		t.Fatal(err)
	}
	es, _, err := audit.Audit(context.Background(), core.Page{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		if e.Actor != adminmod.CLIActor || e.ActorID != "" {
			t.Errorf("entry by %q (%q): %+v", e.Actor, e.ActorID, e)
		}
		got = append(got, e.Action+" "+e.Target+" "+string(e.Outcome))
	}
	slices.Sort(got)
	want = slices.Sorted(slices.Values(want))
	if !slices.Equal(got, want) {
		t.Fatalf("audit log %q, want %q", got, want)
	}
}
