package bootstrap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"go.uber.org/dig"
	"go.uber.org/fx"
	"go.uber.org/zap"

	"tandem/adapters/console"
	"tandem/adapters/httpapi"
	"tandem/adapters/sqlstore"
	"tandem/core"
	adminmod "tandem/modules/admin"
)

// commands are the subcommands, in the order help lists them.
var commands = []struct{ name, args, help string }{
	{"serve", "", "run the HTTP service (the default command); migrations run at start, one process at a time"},
	{"migrate", "", "bring the database of TANDEM_DB up to date and exit"},
	{"backup", "DIR [--dump FILE]", "snapshot the running deployment (SQLite database, blob files, manifest) into a new or empty DIR;\n" +
		"  on MySQL, --dump FILE keeps the dump made just before in the backup, its checksum in the manifest"},
	{"restore", "DIR", "verify the backup in DIR and restore it into the empty TANDEM_DB and TANDEM_BLOBS"},
	{"admin", "create|grant|revoke EMAIL", "create an administrator with a password (asked, or stdin's first line; the address verified), or grant or revoke an account's rights\n" +
		"  admin version-policy get|set PLATFORM [flags]  show or set a platform's app update policy"},
	{"openapi", "", "print the OpenAPI document served at /openapi.json (servers from TANDEM_PUBLIC_URL)"},
	{"config", "", "print the effective settings, every TANDEM_* variable with the value taken (set or default), secrets masked"},
	{"healthcheck", "", "exit 0 when the server on TANDEM_ADDR answers /readyz with 200 (the container health check)"},
	{"version", "", "print the version, the git commit and the Go version"},
}

// usage is the help of every command, or of the one named.
func usage(only string) string {
	var b strings.Builder
	if only == "" {
		b.WriteString("usage: tandem [command] (configuration: TANDEM_* environment variables)\n")
	}
	for _, c := range commands {
		if only == "" || c.name == only {
			fmt.Fprintf(&b, "  %-26s %s\n", strings.TrimSpace(c.name+" "+c.args), c.help)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func isCommand(name string) bool {
	for _, c := range commands {
		if c.name == name {
			return true
		}
	}
	return false
}

func wantsHelp(args []string) bool {
	for _, a := range args {
		if a == "-h" || a == "--help" || a == "-help" {
			return true
		}
	}
	return false
}

// Run executes one command line. Errors are returned for main to print as one line.
// Warnings (a TANDEM_* variable Tandem does not read) go to stderr first.
func Run(ctx context.Context, args []string, lookupEnv func(string) (string, bool), stdout io.Writer) error {
	return RunStdio(ctx, args, lookupEnv, Stdio{In: os.Stdin, Out: stdout, Err: os.Stderr})
}

// Stdio are a command's standard streams (admin create reads its password
// from In).
type Stdio struct {
	In       io.Reader
	Out, Err io.Writer
}

// RunStdio is Run with every stream given.
func RunStdio(ctx context.Context, args []string, lookupEnv func(string) (string, bool), std Stdio) error {
	return run(ctx, args, lookupEnv, os.Environ(), std)
}

// run is RunStdio with the environment's list (for the unknown variables) given.
func run(ctx context.Context, args []string, lookupEnv func(string) (string, bool), environ []string, std Stdio) error {
	stdout, stderr := std.Out, std.Err
	cmd := "serve"
	if len(args) > 0 {
		cmd = args[0]
	}
	switch {
	case cmd == "help" || cmd == "-h" || cmd == "--help":
		fmt.Fprintln(stdout, usage(""))
		return nil
	case !isCommand(cmd):
		return fmt.Errorf("unknown command %q\n%s", cmd, usage(""))
	case len(args) > 1 && wantsHelp(args[1:]):
		fmt.Fprintln(stdout, "usage: tandem "+strings.TrimSpace(usage(cmd)))
		return nil
	case cmd == "version":
		return printVersion(stdout)
	}
	cfg, err := Load(lookupEnv)
	cfg.unknown = unknownVariables(environ)
	switch {
	case err != nil && len(cfg.unknown) > 0:
		return fmt.Errorf("%w\n%s", err, strings.Join(cfg.unknown, "\n"))
	case err != nil:
		return err
	case cmd == "config":
		return printConfig(cfg, stdout)
	case len(cfg.unknown) > 0 && !cfg.Development:
		return fmt.Errorf("%s\nproduction refuses settings it does not know (a typo would leave one at its default): "+
			"remove them, or set TANDEM_ENV=development to run with a warning", strings.Join(cfg.unknown, "\n"))
	}
	// Before anything else (the logger, the database, the listener), as
	// plain lines: a misspelt variable leaves its setting at the default,
	// and what fails next (a busy default port) would not say so.
	for _, line := range cfg.unknown {
		fmt.Fprintln(stderr, "tandem: warning: "+line)
	}
	if err := command(ctx, cmd, cfg, args, lookupEnv, std); err != nil {
		return withSuspects(err, cfg.unknown)
	}
	return nil
}

// withSuspects adds to a failed command's error a line naming the unknown
// variables: "address already in use" after TANDEM_ADRR=:9000 is the
// default :8080 being busy, and the operator should be told so where the
// failure is printed.
func withSuspects(err error, unknown []string) error {
	if len(unknown) == 0 {
		return err
	}
	return fmt.Errorf("%w\nthe environment has TANDEM_* variables Tandem does not read, so the settings they were meant for "+
		"took their defaults and may be the cause:\n%s", err, strings.Join(unknown, "\n"))
}

// command runs cmd on a loaded configuration.
func command(ctx context.Context, cmd string, cfg Config, args []string, lookupEnv func(string) (string, bool), std Stdio) error {
	stdout := std.Out
	switch cmd {
	case "serve":
		return serve(ctx, cfg, logMemoryLimit(TuneGC(lookupEnv)))
	case "migrate":
		return migrate(ctx, cfg, stdout)
	case "backup":
		return backup(ctx, cfg, args[1:], stdout)
	case "restore":
		return restore(ctx, cfg, args[1:], stdout)
	case "admin":
		return admin(ctx, cfg, args[1:], std)
	case "openapi":
		return printOpenAPI(cfg, stdout)
	}
	return healthcheck(ctx, cfg, stdout)
}

// printOpenAPI writes the served document, for linters and client generators.
func printOpenAPI(cfg Config, stdout io.Writer) error {
	doc, err := httpapi.Document(cfg.HTTP.PublicURL)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", doc)
	return err
}

// serveGCPercent is the collector's target when GOGC is not set: the
// server's live heap is small and its garbage per request large, so at the
// runtime's 100 the collector ran every few milliseconds under load (8% of
// the CPU of an event list). At 200: list 20 events 6,840 -> 8,170 req/s,
// peak RSS 80 -> 107 MB (BENCHMARKS.md). GOGC and GOMEMLIMIT still rule.
const serveGCPercent = 200

// TuneGC applies serveGCPercent unless GOGC is set, and a soft memory
// limit of 90% of the container's or the machine's memory unless
// GOMEMLIMIT is set (tandem serve, and the load tool's in-process server,
// which must serve as tandem serve does). It returns the memory limit.
func TuneGC(lookupEnv func(string) (string, bool)) MemoryLimit {
	if _, set := lookupEnv("GOGC"); !set {
		debug.SetGCPercent(serveGCPercent)
	}
	return tuneMemoryLimit(lookupEnv, os.DirFS("/"))
}

// logMemoryLimit logs at start the memory limit TuneGC chose and why.
func logMemoryLimit(m MemoryLimit) fx.Option {
	return fx.Invoke(func(lc fx.Lifecycle, log *zap.Logger) {
		lc.Append(fx.StartHook(func() {
			switch {
			case m.Source == "":
				log.Info("memory limit: none (no cgroup limit and no /proc/meminfo found); set GOMEMLIMIT")
			case m.Bytes == 0:
				log.Info("memory limit: off (GOMEMLIMIT)")
			case m.Of == 0:
				log.Info("memory limit", zap.Int64("bytes", m.Bytes), zap.String("source", m.Source))
			default:
				log.Info("memory limit", zap.Int64("bytes", m.Bytes), zap.String("source", m.Source),
					zap.Int64("of", m.Of), zap.Float64("share", memoryShare))
			}
		}))
	})
}

// serve runs until SIGINT/SIGTERM, then drains in-flight requests.
func serve(ctx context.Context, cfg Config, extra ...fx.Option) error {
	if err := errors.Join(cfg.Purchases.requireOne(), cfg.Mail.requireMail()); err != nil {
		return err
	}
	app := New(cfg, extra...)
	if err := app.Err(); err != nil {
		return dig.RootCause(err)
	}
	startCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := app.Start(startCtx); err != nil {
		return dig.RootCause(err)
	}
	sigCtx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	<-sigCtx.Done()
	// The drain may take the whole grace, then the requests still in hand
	// finish (within the request timeout) and the jobs and the store stop.
	stopCtx, cancelStop := context.WithTimeout(context.Background(), cfg.HTTP.ShutdownGrace+20*time.Second)
	defer cancelStop()
	return app.Stop(stopCtx)
}

func migrate(ctx context.Context, cfg Config, stdout io.Writer) error {
	if cfg.DB.Kind == DBMemory {
		fmt.Fprintln(stdout, "memory profile: nothing to migrate")
		return nil
	}
	db, err := sqlstore.Open(ctx, sqlstore.Config{Dialect: sqlDialect(cfg.DB.Kind), DSN: cfg.DB.DSN})
	if err != nil {
		return err
	}
	defer db.Close()
	log, err := NewLogger(cfg)
	if err != nil {
		return err
	}
	if err := sqlstore.Migrate(ctx, db, log); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "migrations applied")
	return nil
}

// admin runs an administrator command on the configured database, without
// serving: the graph is built (constructors run), never started.
func admin(ctx context.Context, cfg Config, args []string, std Stdio) error {
	stdout := std.Out
	if len(args) > 0 && args[0] == "version-policy" {
		return versionPolicy(ctx, cfg, args[1:], stdout)
	}
	if len(args) == 2 && args[0] == "create" {
		return adminCreate(ctx, cfg, args[1], std.In, stdout, std.Err)
	}
	if len(args) != 2 || (args[0] != "grant" && args[0] != "revoke") {
		return fmt.Errorf("usage: tandem admin create|grant|revoke EMAIL")
	}
	var audited *adminmod.AuditedAccounts
	app := fx.New(Options(cfg), fx.NopLogger, fx.Populate(&audited))
	if err := app.Err(); err != nil {
		return err
	}
	// through the audit log, by "cli", as the console records its changes
	if err := audited.SetAdmin(adminmod.AsCLI(ctx), args[1], args[0] == "grant"); err != nil {
		return fmt.Errorf("admin %s %s: %s", args[0], args[1], core.As(err).Message)
	}
	fmt.Fprintf(stdout, "%s: administrator %s\n", args[1], map[bool]string{true: "granted", false: "revoked"}[args[0] == "grant"])
	return nil
}

// plainHTTPWarning is logged at every start in production when
// TANDEM_PUBLIC_URL is http://: the console's cookies then lack Secure.
const plainHTTPWarning = "TANDEM_PUBLIC_URL is http:// in production: the console's session cookies are sent " +
	"without Secure, in the clear; serve behind https and give its https:// URL"

// pushLogWarning is logged at every start in production when TANDEM_PUSH
// names no provider that delivers (unset: log).
const pushLogWarning = "TANDEM_PUSH delivers to no device in production (unset, it is log): pushes are only " +
	"written to the log; set expo and/or fcm?project=...&credentials=FILE"

// pushesDelivered reports whether some provider of TANDEM_PUSH reaches devices.
func pushesDelivered(providers []PushConfig) bool {
	for _, p := range providers {
		if p.Kind != "log" && p.Kind != "memory" {
			return true
		}
	}
	return false
}

// productionWarnings logs, at each start, what production should not run
// with but may (a TLS-terminating proxy in front that is not yet in the URL).
func productionWarnings(cfg Config) fx.Option {
	return fx.Invoke(func(lc fx.Lifecycle, log *zap.Logger) {
		// as the console decides Secure: anything but https
		for _, line := range cfg.unknown {
			lc.Append(fx.StartHook(func() { log.Warn("unknown setting ignored: " + line) }))
		}
		if !cfg.Development && !pushesDelivered(cfg.Push) {
			lc.Append(fx.StartHook(func() { log.Warn(pushLogWarning, zap.String("variable", "TANDEM_PUSH")) }))
		}
		if !cfg.Development && !console.IsHTTPS(cfg.HTTP.PublicURL) {
			lc.Append(fx.StartHook(func() {
				log.Warn(plainHTTPWarning, zap.String("variable", "TANDEM_PUBLIC_URL"), zap.String("url", cfg.HTTP.PublicURL))
			}))
		}
	})
}
