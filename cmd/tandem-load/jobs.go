package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"go.uber.org/fx"

	"tandem/adapters/sqlstore"
	"tandem/modules/accounts"
	"tandem/modules/changes"
	"tandem/modules/events"
	"tandem/modules/idempotency"
	"tandem/modules/images"
	"tandem/modules/notifications"
	"tandem/modules/partners"
	"tandem/modules/relationship"
	"tandem/modules/throttle"
)

// jobServices are the background jobs' services, as bootstrap/jobs.go runs
// them in `tandem serve`.
type jobServices struct {
	fx.In
	DB         *sqlstore.DB
	Limiter    *throttle.Limiter
	Accounts   *accounts.Service
	Mail       *accounts.Sender
	Reminders  *events.Reminders
	Daily      *notifications.Reminders
	Receipts   *notifications.Receipts
	Sweeper    *images.Sweeper
	Milestones *relationship.MilestonePushes
	Pairs      *partners.Service
	Keys       *idempotency.Service
	Feed       *changes.Service
}

// jobsCmd runs one pass of every background job on -db, one after another,
// and prints each one's items, time and statements (issue 36: does a pass
// stay bounded as the data grows?). The app is assembled, not served.
func jobsCmd(args []string) error {
	fs := flag.NewFlagSet("jobs", flag.ExitOnError)
	db := fs.String("db", "sqlite:bench/out/bench.db", "TANDEM_DB to run the jobs on")
	only := fs.String("only", "", "run only the jobs whose name holds this")
	fs.Parse(args)
	var js jobServices
	if _, _, err := assemble(*db, "", fx.Populate(&js)); err != nil {
		return err
	}
	defer js.DB.Close()
	list := []struct {
		name string
		run  func(context.Context) (int, error)
	}{
		{"send mail", js.Mail.SendDue},
		{"purge throttle counters", js.Limiter.Purge},
		{"purge expired tokens, codes, reset proofs and mail", js.Accounts.Purge},
		{"purge expired connection codes", js.Pairs.PurgeExpiredConnections},
		{"purge expired idempotency keys", js.Keys.Purge},
		{"purge changes past the retention", js.Feed.Purge},
		{"send event reminders (claims)", js.Reminders.SendDue},
		{"send daily reminders", js.Daily.SendDue},
		{"purge daily reminder claims", js.Daily.Purge},
		{"send milestone pushes", js.Milestones.SendDue},
		{"read push receipts", js.Receipts.CheckDue},
		{"sweep files without an image", js.Sweeper.Sweep},
	}
	ctx := context.Background()
	for _, j := range list {
		if !strings.Contains(j.name, *only) {
			continue
		}
		before := js.DB.Statements()
		start := time.Now()
		n, err := j.run(ctx)
		took := time.Since(start)
		status := "ok"
		if err != nil {
			status = err.Error()
		}
		fmt.Printf("JOB name=%q items=%d ms=%.1f statements=%d status=%q\n", j.name, n,
			float64(took.Microseconds())/1000, js.DB.Statements()-before, status)
	}
	return nil
}
