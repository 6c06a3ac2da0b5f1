package sqlstore_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"tandem/adapters/sqlstore"
	"tandem/adapters/sqlstore/sqltest"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/changes"
	"tandem/modules/messages"
	"tandem/modules/partners"
)

// BenchmarkSendMessage measures a message's write alone (changes=none)
// against the same write with its change record for both partners, rendered
// and inserted in its transaction (changes=recorded), and with those
// changes read through the partnership, whose row the write reads first
// (changes=through, as the service sends them): the feed's added cost per
// write (issue 47; BENCHMARKS.md "Change feed").
func BenchmarkSendMessage(b *testing.B) {
	for _, d := range sqltest.Dialects(b) {
		for _, mode := range []string{"none", "recorded", "through"} {
			recorded := mode != "none"
			b.Run(string(d)+"/changes="+mode, func(b *testing.B) {
				db := sqltest.Open(b, d)
				db.RecordChangesWith(changes.Recording{Render: renderMessage, Clock: coretest.NewClock(time.Time{})})
				repo := sqlstore.NewMessageRepo(db)
				ctx := context.Background()
				at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
				p := partners.Partnership{ID: "p1", UserA: "ann", UserB: "bob", CreatedAt: at}
				if err := sqlstore.NewPartnerRepo(db).Pair(ctx, p.Users(), func(partners.Pairing) (partners.PairingChange, error) {
					return partners.PairingChange{Partnership: &p}, nil
				}); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					i++
					m := messages.Message{ID: "m" + strconv.Itoa(i), Scope: "p1", AuthorID: "ann",
						Body: "see you at eight, I booked the table by the window", CreatedAt: at}
					write := func(ctx context.Context) error { return repo.Add(ctx, m) }
					var err error
					if recorded {
						cs := core.ChangesOf(core.ChangeMessage, m.ID, map[string]any{"ann": m, "bob": m})
						if mode == "through" {
							cs = core.Through(p.ID, cs...)
						}
						err = core.WriteWithChanges(ctx, nil, cs, write)
					} else {
						err = write(ctx)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				if recorded && d == sqlstore.SQLite {
					b.ReportMetric(bytesPerChange(b, db), "B/change")
				}
			})
		}
	}
}

// renderMessage renders a message as the REST list shows it (httpapi's
// toMessageJSON: the same fields, so the same bytes per row).
func renderMessage(rec any) ([]byte, error) {
	m := rec.(messages.Message)
	return json.Marshal(struct {
		ID        string `json:"id"`
		Body      string `json:"body"`
		Author    string `json:"author"`
		CreatedAt int64  `json:"createdAt"`
	}{m.ID, m.Body, m.AuthorID, m.CreatedAt.UnixMilli()})
}

// bytesPerChange is what one change row takes on disk in SQLite, with its
// two indexes (dbstat's pages of the table and of each index).
func bytesPerChange(b *testing.B, db *sqlstore.DB) float64 {
	var bytes, rows float64
	if err := db.Get(&bytes, `SELECT SUM(pgsize) FROM dbstat WHERE name IN ('changes', 'idx_changes_user', 'idx_changes_created')`); err != nil {
		b.Fatal(err)
	}
	if err := db.Get(&rows, `SELECT COUNT(*) FROM changes`); err != nil {
		b.Fatal(err)
	}
	return bytes / rows
}
