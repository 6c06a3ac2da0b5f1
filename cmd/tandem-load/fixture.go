package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.uber.org/fx"

	"tandem/adapters/httpapi"
	"tandem/adapters/sqlstore"
	"tandem/bootstrap"
	"tandem/core"
	"tandem/modules/accounts"
	"tandem/modules/events"
	"tandem/modules/partners"
)

// fixture is the data set the HTTP benchmarks (bench/, `make bench-http`)
// run against: `couples` paired couples with nothing else (the crowd the
// indexes must see past), and `users` benchmark users, paired two by two,
// each with a bearer token, sharing `events` calendar events.
type fixture struct {
	couples, users, events int
	spread                 string // "": the crowd is couples only, written through the stores
}

// stores are the repositories the fixture writes through: the same code
// paths the app's writes take, without the HTTP and password hashing costs
// (signing up 20,000 accounts through argon2id would take minutes).
type stores struct {
	fx.In
	Accounts accounts.Repository
	Partners partners.Repository
	Events   events.Repository
	Hasher   accounts.PasswordHasher
	DB       *sqlstore.DB `optional:"true"` // nil on the memory store
}

// benchUser is one benchmark user as the wrk scripts see it.
type benchUser struct {
	id, token string
	events    []string
}

// prepareCmd writes the fixture into the database of -db (SQLite or MySQL)
// and the users' ids, tokens and event ids to -out (a Lua table the wrk
// scripts load); `tandem serve` then serves that database.
func prepareCmd(args []string) error {
	fs := flag.NewFlagSet("prepare", flag.ExitOnError)
	db, out, f := fixtureFlags(fs)
	fs.Parse(args)
	if strings.HasPrefix(*db, "memory") {
		return fmt.Errorf("prepare: the memory store lives in one process: use `tandem-load serve`")
	}
	var sqlDB *sqlstore.DB
	_, st, err := assemble(*db, "", fx.Populate(&sqlDB))
	if err != nil {
		return err
	}
	if err := seedAndWrite(st, *f, *out); err != nil {
		return err
	}
	// Closing checkpoints SQLite's write-ahead log into the file, so the
	// server's cold start opens a database as it would find it.
	return sqlDB.Close()
}

// serveCmd builds the app in-process on -db (the memory profile's only way
// to hold a fixture), seeds it, writes -out and serves on -addr until
// SIGINT or SIGTERM.
func serveCmd(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	db, out, f := fixtureFlags(fs)
	addr := fs.String("addr", "127.0.0.1:8089", "address to serve on")
	fs.Parse(args)
	bootstrap.TuneGC(os.LookupEnv)
	var srv *httpapi.Server
	app, st, err := assemble(*db, *addr, fx.Populate(&srv))
	if err != nil {
		return err
	}
	// Seeded before it starts: once /readyz answers, the fixture is there.
	if err := seedAndWrite(st, *f, *out); err != nil {
		return err
	}
	if err := app.Start(context.Background()); err != nil {
		return err
	}
	defer app.Stop(context.Background())
	fmt.Printf("serving on http://%s\n", srv.Addr())
	sig, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	<-sig.Done()
	return nil
}

func fixtureFlags(fs *flag.FlagSet) (db, out *string, f *fixture) {
	f = &fixture{}
	db = fs.String("db", "sqlite:bench/out/bench.db", "TANDEM_DB to fill")
	out = fs.String("out", "bench/out/fixture.lua", "where the wrk scripts find the users, tokens and event ids")
	fs.IntVar(&f.couples, "couples", 10_000, "couples besides the benchmark users")
	fs.IntVar(&f.users, "users", 20, "benchmark users, paired two by two, each with a token")
	fs.IntVar(&f.events, "events", 10_000, "calendar events, spread over the benchmark users")
	fs.StringVar(&f.spread, "spread", "", `"default" or NAME=COUNT,...: the crowd also keeps events, messages, memories, images, `+
		`notifications, moods, daily questions and the change feed's rows, written in bulk (bulk.go; SQL stores only)`)
	return db, out, f
}

// assemble builds the app on db (migrating a SQL database), not started.
func assemble(db, addr string, extra fx.Option) (*fx.App, stores, error) {
	env := benchEnv(db, addr)
	cfg, err := bootstrap.Load(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		return nil, stores{}, err
	}
	var st stores
	app := bootstrap.New(cfg, fx.NopLogger, fx.Populate(&st), extra)
	return app, st, app.Err()
}

// benchEnv is the configuration the benchmarks serve with: the defaults
// (the calendar routes have no request limit to lift), quiet logs, the
// profiler on the metrics listener.
func benchEnv(db, addr string) map[string]string {
	return map[string]string{"TANDEM_DB": db, "TANDEM_ADDR": addr, "TANDEM_METRICS_ADDR": "127.0.0.1:9464", "TANDEM_ENV": "development",
		"TANDEM_BLOBS": "memory", "TANDEM_MAIL": "log", "TANDEM_PUSH": "log", "TANDEM_LOG_LEVEL": "error"}
}

func seedAndWrite(st stores, f fixture, out string) error {
	start := time.Now()
	ctx := context.Background()
	if f.spread != "" {
		if err := seedCrowd(ctx, st, f); err != nil {
			return err
		}
	} else if err := seedCouples(ctx, st, f.couples); err != nil {
		return err
	}
	users, err := seedUsers(ctx, st, f)
	if err != nil {
		return err
	}
	if err := writeFixture(out, users); err != nil {
		return err
	}
	fmt.Printf("fixture: %d couples, %d users, %d events in %s; users in %s\n", f.couples, f.users, f.events,
		time.Since(start).Round(time.Millisecond), out)
	return nil
}

// seedCrowd writes the crowd with its spread, in bulk.
func seedCrowd(ctx context.Context, st stores, f fixture) error {
	sp, err := parseSpread(f.spread)
	if err != nil {
		return err
	}
	if st.DB == nil {
		return fmt.Errorf("-spread writes SQL tables: not on the memory store")
	}
	hash, err := st.Hasher.Hash(crowdPassword)
	if err != nil {
		return err
	}
	start := time.Now()
	rows, err := seedSpread(ctx, st.DB, hash, f.couples, sp)
	if err != nil {
		return err
	}
	fmt.Printf("crowd: %d couples, %d rows in %s\n", f.couples, rows, time.Since(start).Round(time.Millisecond))
	return nil
}

// seedCouples writes n couples, eight at a time (a MySQL round trip each).
func seedCouples(ctx context.Context, st stores, n int) error {
	const workers = 8
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				a, b := fmt.Sprintf("crowd-%d-a", i), fmt.Sprintf("crowd-%d-b", i)
				if err := seedCouple(ctx, st, a, b); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

func seedCouple(ctx context.Context, st stores, a, b string) error {
	now := time.Now().UTC()
	for _, id := range []string{a, b} {
		if err := st.Accounts.Create(ctx, accounts.Account{ID: id, Email: id + "@bench.tandem", PasswordHash: "-",
			Verified: true, CreatedAt: now, UpdatedAt: now}); err != nil {
			return fmt.Errorf("account %s: %w", id, err)
		}
	}
	code := "B" + strings.ToUpper(strings.ReplaceAll(a, "-", ""))
	if err := st.Partners.PutConnection(ctx, partners.Connection{ID: "c-" + a, UserID: a, Code: code, CreatedAt: now}); err != nil {
		return fmt.Errorf("connection of %s: %w", a, err)
	}
	p := partners.Partnership{ID: "p-" + a, UserA: a, UserB: b, CreatedAt: now}
	return st.Partners.Pair(ctx, p.Users(), func(partners.Pairing) (partners.PairingChange, error) {
		return partners.PairingChange{Partnership: &p}, nil // a seed: no rule to apply
	})
}

// seedUsers writes the benchmark users, their tokens and their events: an
// event a day from 2025-01-01 on, so lists and date ranges see real spreads.
func seedUsers(ctx context.Context, st stores, f fixture) ([]benchUser, error) {
	users := make([]benchUser, f.users)
	for i := 0; i+1 < f.users; i += 2 {
		a, b := fmt.Sprintf("bench-%d-a", i), fmt.Sprintf("bench-%d-b", i)
		if err := seedCouple(ctx, st, a, b); err != nil {
			return nil, err
		}
		users[i].id, users[i+1].id = a, b
	}
	now := time.Now().UTC()
	for i := range users {
		plain := fmt.Sprintf("bench-token-%d-%d", i, now.UnixNano())
		tk := accounts.Token{ID: fmt.Sprintf("s-%d", i), Hash: accounts.HashToken(plain), UserID: users[i].id, CreatedAt: now,
			ExpiresAt: now.Add(accounts.TokenTTL)}
		if _, err := st.Accounts.CreateToken(ctx, tk, accounts.KeepSessions(tk, accounts.MaxSessions)); err != nil {
			return nil, err
		}
		users[i].token = plain
	}
	first := core.Date{Year: 2025, Month: time.January, Day: 1}
	for n := range f.events {
		u := &users[n%len(users)]
		day := first.AddDays(n / len(users))
		e := events.Event{ID: fmt.Sprintf("ev-%06d", n), UserID: u.id, Title: fmt.Sprintf("Event %d", n),
			Description: "Dinner at the usual place", StartDate: day, EndDate: day, Location: "Home",
			Type: events.TypeDate, Importance: events.ImportanceMedium, Participants: []string{}, CreatedAt: now, UpdatedAt: now}
		if err := st.Events.Create(ctx, e); err != nil {
			return nil, fmt.Errorf("event %s: %w", e.ID, err)
		}
		u.events = append(u.events, e.ID)
	}
	return users, nil
}

// writeFixture writes the users as a Lua table: {id=, token=, events={...}}.
func writeFixture(path string, users []benchUser) error {
	var b strings.Builder
	b.WriteString("-- written by tandem-load prepare|serve: the benchmark users\nreturn {\n")
	for _, u := range users {
		fmt.Fprintf(&b, "  {id=%q, token=%q, events={", u.id, u.token)
		for i, e := range u.events {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%q", e)
		}
		b.WriteString("}},\n")
	}
	b.WriteString("}\n")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(b.String()), 0o600)
}
