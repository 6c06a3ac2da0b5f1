package bootstrap

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"runtime/debug"
	"time"
)

// Version is the release, set at build time:
// go build -ldflags "-X tandem/bootstrap.Version=v1.4.0" (make build,
// make run and make image do it from git describe). A plain go build says "dev".
var Version = "dev"

// Commit is the git commit, set at build time beside Version
// (-X tandem/bootstrap.Commit=...; "+dirty" when built from changed files):
// go run, and a build outside a checkout or with -buildvcs=false, have no
// VCS data of their own. Empty: the go command's stamp, if any.
var Commit = ""

// BuildInfo is what `tandem version` prints and the image labels carry.
type BuildInfo struct {
	Version  string
	Revision string // the git commit, "+dirty" when built from changed files; "unknown" outside a checkout
	Go       string
}

// Build reads the version, the commit the go command stamped and the Go
// version of this binary.
func Build() BuildInfo {
	b := BuildInfo{Version: Version, Revision: "unknown", Go: runtime.Version()}
	if Commit != "" {
		b.Revision = Commit
		return b
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if dirty && b.Revision != "unknown" {
		b.Revision += "+dirty"
	}
	return b
}

func printVersion(stdout io.Writer) error {
	b := Build()
	_, err := fmt.Fprintf(stdout, "tandem %s\ncommit %s\n%s\n", b.Version, b.Revision, b.Go)
	return err
}

// healthcheck asks this machine's server whether it is ready (GET /readyz
// on TANDEM_ADDR): the container health check, where no shell or curl is.
func healthcheck(ctx context.Context, cfg Config, stdout io.Writer) error {
	host, port, err := net.SplitHostPort(cfg.HTTP.Addr)
	if err != nil {
		return fmt.Errorf("TANDEM_ADDR: %w", err)
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	url := "http://" + net.JoinHostPort(host, port) + "/readyz"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: %s answered %d", url, res.StatusCode)
	}
	_, err = fmt.Fprintln(stdout, "ready")
	return err
}
