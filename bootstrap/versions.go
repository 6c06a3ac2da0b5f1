package bootstrap

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"go.uber.org/fx"

	"tandem/adapters/web"
	"tandem/core"
	adminmod "tandem/modules/admin"
	"tandem/modules/versions"
)

const versionPolicyUsage = "usage: tandem admin version-policy get PLATFORM | " +
	"set PLATFORM -min V -recommended V -latest V -url URL -message TEXT [-notes TEXT] [-deprecation YYYY-MM-DD|RFC3339]"

// versionPolicy shows or sets a platform's update policy on the configured
// database, as PUT /api/admin/version-policy/{platform} does, without serving.
func versionPolicy(ctx context.Context, cfg Config, args []string, stdout io.Writer) error {
	if len(args) < 2 || (args[0] != "get" && args[0] != "set") || (args[0] == "get" && len(args) != 2) {
		return errors.New(versionPolicyUsage)
	}
	verb, platform := args[0], args[1]
	var d versions.PolicyDraft
	if verb == "set" {
		var err error
		if d, err = parsePolicyFlags(args[2:]); err != nil {
			return err
		}
	}
	var (
		svc     *versions.Service
		audited *web.AuditedPolicies
	)
	app := fx.New(Options(cfg), fx.NopLogger, fx.Populate(&svc, &audited))
	if err := app.Err(); err != nil {
		return err
	}
	var (
		p   versions.Policy
		err error
	)
	if verb == "get" {
		p, err = svc.Policy(ctx, platform)
	} else {
		// through the audit log, by "cli", as the console and the API set one
		p, err = audited.SetPolicy(adminmod.AsCLI(ctx), platform, d)
	}
	if err != nil {
		return fmt.Errorf("version-policy %s %s: %s", verb, platform, core.As(err).Message)
	}
	printPolicy(stdout, p)
	return nil
}

func parsePolicyFlags(args []string) (versions.PolicyDraft, error) {
	var d versions.PolicyDraft
	var deprecation string
	fs := flag.NewFlagSet("version-policy set", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&d.MinRequiredVersion, "min", "", "minimum required version")
	fs.StringVar(&d.RecommendedVersion, "recommended", "", "recommended version")
	fs.StringVar(&d.LatestVersion, "latest", "", "latest version")
	fs.StringVar(&d.DownloadURL, "url", "", "https store link")
	fs.StringVar(&d.UpdateMessage, "message", "", "update message")
	fs.StringVar(&d.ReleaseNotes, "notes", "", "release notes")
	fs.StringVar(&deprecation, "deprecation", "", "deprecation date")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		return versions.PolicyDraft{}, errors.New(versionPolicyUsage)
	}
	if deprecation != "" {
		t, err := parseDeprecation(deprecation)
		if err != nil {
			return versions.PolicyDraft{}, err
		}
		d.DeprecationDate = &t
	}
	return d, nil
}

// parseDeprecation reads YYYY-MM-DD (midnight UTC) or an RFC 3339 time.
func parseDeprecation(s string) (time.Time, error) {
	if d, err := core.ParseDate(s); err == nil {
		return d.Time(), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("version-policy: -deprecation %q is not YYYY-MM-DD or an RFC 3339 time", s)
	}
	return t.UTC(), nil
}

func printPolicy(w io.Writer, p versions.Policy) {
	fmt.Fprintf(w, "%s: min %s, recommended %s, latest %s\n", p.Platform, p.MinRequired, p.Recommended, p.Latest)
	fmt.Fprintf(w, "  url: %s\n  message: %s\n", p.DownloadURL, p.UpdateMessage)
	if p.ReleaseNotes != "" {
		fmt.Fprintf(w, "  notes: %s\n", p.ReleaseNotes)
	}
	if !p.DeprecationDate.IsZero() {
		fmt.Fprintf(w, "  deprecation: %s\n", p.DeprecationDate.Format(time.RFC3339))
	}
	fmt.Fprintf(w, "  updated: %s\n", p.UpdatedAt.UTC().Format(time.RFC3339))
}
