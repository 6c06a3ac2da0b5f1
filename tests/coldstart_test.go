package tests

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/adapters/sqlstore"
	"tandem/adapters/sqlstore/sqltest"
)

// Processes started at the same instant on an empty database (a rolling
// deploy, an autoscaler) take turns migrating: every one serves, and the
// schema is migrated once. Five rounds: three processes on a new MySQL
// database, two on a new SQLite file.
func TestColdStartsTakeTurnsMigrating(t *testing.T) {
	parallel(t)
	for _, d := range sqltest.Dialects(t) {
		t.Run(string(d), func(t *testing.T) {
			n := 3
			if d == sqlstore.SQLite {
				n = 2
			}
			for round := range 5 {
				dsn := sqltest.Config(t, d).DSN
				if d == sqlstore.SQLite {
					dsn = filepath.Join(t.TempDir(), "tandem.db") // a file no process has opened
				}
				startTogether(t, round, n, map[string]string{"TANDEM_DB": string(d) + ":" + dsn})
			}
		})
	}
}

// startTogether launches n processes on env at once and waits until each
// serves and is ready; the waiting ones said so in their logs.
func startTogether(t *testing.T, round, n int, env map[string]string) {
	t.Helper()
	procs := make([]*proc, n)
	var wg sync.WaitGroup
	for i := range procs {
		wg.Add(1)
		go func() { defer wg.Done(); procs[i] = launchTandem(t, env) }()
	}
	wg.Wait()
	waited := 0
	for i, p := range procs {
		if err := p.serving(60 * time.Second); err != nil {
			t.Fatalf("round %d, process %d of %d: %v", round, i+1, n, err)
		}
		if status, _ := p.call("GET", "/readyz", "", nil, ""); status != 200 {
			t.Fatalf("round %d, process %d: /readyz %d: %s", round, i+1, status, p.out.String())
		}
		if status, body := p.callJSON("POST", "/api/auth/signup/email", "", map[string]string{
			"email": fmt.Sprintf("cold-%d-%d@example.com", round, i), "password": "a long enough password 1"}); status != 200 {
			t.Fatalf("round %d, process %d: sign-up %d %v", round, i+1, status, body)
		}
		if strings.Contains(p.out.String(), "waiting for its migrations") {
			waited++
		}
	}
	for _, p := range procs {
		p.kill()
	}
	t.Logf("round %d: %d of %d processes waited for another's migrations", round, waited, n)
}
