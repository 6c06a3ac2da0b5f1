package notifications_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/adapters/memory"
	"tandem/adapters/push"
	"tandem/core/coretest"
	n "tandem/modules/notifications"
)

// readerFake answers receipts by the ticket id's prefix: "ok", "gone"
// (DeviceNotRegistered), "big" (another error); any other id has none yet.
// It records every request; down makes requests fail.
type readerFake struct {
	mu    sync.Mutex
	asked [][]string
	down  bool
}

func (r *readerFake) Receipts(_ context.Context, ids []string) (map[string]n.Receipt, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, slices.Clone(ids))
	if r.down {
		return nil, errors.New("expo unreachable")
	}
	out := map[string]n.Receipt{}
	for _, id := range ids {
		switch {
		case strings.HasPrefix(id, "ok"):
			out[id] = n.Receipt{Status: n.ReceiptOK}
		case strings.HasPrefix(id, "gone"):
			out[id] = n.Receipt{Status: n.ReceiptDeadToken, Error: "DeviceNotRegistered"}
		case strings.HasPrefix(id, "big"):
			out[id] = n.Receipt{Status: n.ReceiptFailed, Error: "MessageTooBig"}
		}
	}
	return out, nil
}

func (r *readerFake) requests() [][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.asked)
}

// receiptLogFake records what the job reports: "id:status" or "id:unanswered".
type receiptLogFake struct {
	mu    sync.Mutex
	lines []string
}

func (l *receiptLogFake) Receipt(_ context.Context, t n.Ticket, r n.Receipt) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf("%s:%d", t.ID, r.Status))
}

func (l *receiptLogFake) Unanswered(_ context.Context, t n.Ticket) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, t.ID+":unanswered")
}

func (l *receiptLogFake) all() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := slices.Clone(l.lines)
	slices.Sort(s)
	return strings.Join(s, ",")
}

type receiptFixture struct {
	*fixture
	reader *readerFake
	log    *receiptLogFake
	job    *n.Receipts
}

func newReceiptFixture(t *testing.T) *receiptFixture {
	t.Helper()
	f := newFixture(t)
	r := &receiptFixture{fixture: f, reader: &readerFake{}, log: &receiptLogFake{}}
	r.job = n.NewReceipts(f.tickets, f.repo, r.reader, r.log, f.clock, n.ReceiptSettings{})
	return r
}

func (f *receiptFixture) check(t *testing.T) int {
	t.Helper()
	settled, err := f.job.CheckDue(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return settled
}

// TestReceiptRules: each receipt's effect on the ticket and the device, a
// receipt not ready yet asked again a delay later until the day is over.
func TestReceiptRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newReceiptFixture(t)
	sent := f.clock.Now()
	devs := map[string]n.Device{}
	var tickets []n.Ticket
	for _, id := range []string{"ok-1", "gone-2", "big-3", "pending-4"} {
		d := f.register(t, "u1", "token-"+id)
		devs[id] = d
		tickets = append(tickets, n.Ticket{ID: id, DeviceID: d.ID, SentAt: sent})
	}
	if err := f.tickets.AddTickets(ctx, tickets); err != nil {
		t.Fatal(err)
	}

	f.clock.Advance(n.DefaultReceiptDelay - time.Second)
	if f.check(t) != 0 || len(f.reader.requests()) != 0 {
		t.Fatal("asked before the delay")
	}
	f.clock.Advance(time.Second)
	if settled := f.check(t); settled != 3 {
		t.Fatalf("settled %d", settled)
	}
	if got := f.reader.requests(); len(got) != 1 || strings.Join(got[0], ",") != "big-3,gone-2,ok-1,pending-4" {
		t.Fatalf("asked %v", got)
	}
	if got := f.log.all(); got != fmt.Sprintf("big-3:%d,gone-2:%d,ok-1:%d", n.ReceiptFailed, n.ReceiptDeadToken, n.ReceiptOK) {
		t.Fatalf("logged %s", got)
	}
	if got := f.tokens(t, "u1"); got != "token-pending-4,token-big-3,token-ok-1" {
		t.Fatalf("devices %s: the dead one is removed, the others kept", got)
	}

	// the pending one: not again within the delay, then again, until the day is over
	f.clock.Advance(n.DefaultReceiptDelay - time.Second)
	if f.check(t) != 0 || len(f.reader.requests()) != 1 {
		t.Fatal("asked again within the delay")
	}
	f.clock.Advance(time.Second)
	if f.check(t) != 0 || len(f.reader.requests()) != 2 || f.reader.requests()[1][0] != "pending-4" {
		t.Fatalf("asked %v", f.reader.requests())
	}
	f.clock.Set(sent.Add(n.TicketMaxAge))
	if settled := f.check(t); settled != 1 || !strings.Contains(f.log.all(), "pending-4:unanswered") {
		t.Fatalf("settled %d, logged %s", settled, f.log.all())
	}
	f.clock.Advance(24 * time.Hour)
	if f.check(t) != 0 || len(f.reader.requests()) != 3 {
		t.Fatal("a settled ticket was asked about again")
	}
	if got := f.tokens(t, "u1"); got != "token-pending-4,token-big-3,token-ok-1" {
		t.Fatalf("devices %s", got)
	}
}

// TestUnreachableProviderKeepsTheTickets: a failed read is an error, and
// the tickets are asked about again a delay later.
func TestUnreachableProviderKeepsTheTickets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newReceiptFixture(t)
	d := f.register(t, "u1", "phone")
	if err := f.tickets.AddTickets(ctx, []n.Ticket{{ID: "gone-1", DeviceID: d.ID, SentAt: f.clock.Now()}}); err != nil {
		t.Fatal(err)
	}
	f.reader.down = true
	f.clock.Advance(n.DefaultReceiptDelay)
	if settled, err := f.job.CheckDue(ctx); settled != 0 || err == nil || !strings.Contains(err.Error(), "expo unreachable") {
		t.Fatalf("%d %v", settled, err)
	}
	f.reader.mu.Lock()
	f.reader.down = false
	f.reader.mu.Unlock()
	if f.check(t) != 0 {
		t.Fatal("retried at once")
	}
	f.clock.Advance(n.DefaultReceiptDelay)
	if f.check(t) != 1 || f.tokens(t, "u1") != "" {
		t.Fatalf("devices %q", f.tokens(t, "u1"))
	}
}

// TestReceiptsAreReadInBatches: at most ReceiptBatch ids per read, and a
// configured delay replaces the default.
func TestReceiptsAreReadInBatches(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newReceiptFixture(t)
	f.job = n.NewReceipts(f.tickets, f.repo, f.reader, f.log, f.clock, n.ReceiptSettings{Delay: time.Minute})
	var ts []n.Ticket
	for i := range 2*n.ReceiptBatch + 500 {
		ts = append(ts, n.Ticket{ID: fmt.Sprintf("ok-%05d", i), DeviceID: "d", SentAt: f.clock.Now()})
	}
	if err := f.tickets.AddTickets(ctx, ts); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Minute)
	if settled := f.check(t); settled != len(ts) {
		t.Fatalf("settled %d", settled)
	}
	var sizes []int
	for _, r := range f.reader.requests() {
		sizes = append(sizes, len(r))
	}
	if fmt.Sprint(sizes) != "[1000 1000 500]" {
		t.Fatalf("reads of %v ids", sizes)
	}
}

// TestReceiptJobRunsAtOnceInManyProcesses: five jobs on one store ask
// about each ticket once.
func TestReceiptJobRunsAtOnceInManyProcesses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tickets, reader, clock := memory.NewTicketRepo(), &readerFake{}, coretest.NewClock(time.Time{})
	var ts []n.Ticket
	for i := range 3 * n.ReceiptBatch {
		ts = append(ts, n.Ticket{ID: fmt.Sprintf("ok-%05d", i), DeviceID: "d", SentAt: clock.Now()})
	}
	if err := tickets.AddTickets(ctx, ts); err != nil {
		t.Fatal(err)
	}
	clock.Advance(n.DefaultReceiptDelay)
	var wg sync.WaitGroup
	for range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			job := n.NewReceipts(tickets, memory.NewNotificationRepo(), reader, &receiptLogFake{}, clock, n.ReceiptSettings{})
			if _, err := job.CheckDue(ctx); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	seen := map[string]int{}
	for _, r := range reader.requests() {
		for _, id := range r {
			seen[id]++
		}
	}
	for _, tk := range ts {
		if seen[tk.ID] != 1 {
			t.Fatalf("%s asked %d times", tk.ID, seen[tk.ID])
		}
	}
}

// TestAcceptedPushesLeaveTickets: the service keeps the ticket of each
// delivery that has one, with its device and the time of the push.
func TestAcceptedPushesLeaveTickets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	pusher := &ticketPusher{}
	svc := n.NewService(f.repo, f.tickets, f.reminders, f.zones, pusher, push.Providers{}, f.bus, f.clock, &coretest.SeqIDs{}, english)
	a := f.register(t, "u1", "a")
	f.clock.Advance(time.Second)
	b := f.register(t, "u1", "b")
	f.clock.Advance(time.Second)
	f.register(t, "u1", "dead")
	if res, err := svc.Notify(ctx, "u1", "mood", "t", "m"); err != nil || res.Sent != 2 || res.Removed != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	got, err := f.tickets.ClaimTickets(ctx, f.clock.Now(), f.clock.Now(), 10)
	want := []n.Ticket{{ID: "ticket-a", DeviceID: a.ID, SentAt: f.clock.Now()}, {ID: "ticket-b", DeviceID: b.ID, SentAt: f.clock.Now()}}
	slices.SortFunc(got, func(x, y n.Ticket) int { return strings.Compare(x.ID, y.ID) })
	if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("tickets %+v %v", got, err)
	}
}

// ticketPusher delivers with a ticket "ticket-<token>", except to "dead...".
type ticketPusher struct{}

func (ticketPusher) Push(_ context.Context, _ n.Message, to []n.Device) []n.Delivery {
	out := make([]n.Delivery, len(to))
	for i, d := range to {
		if strings.HasPrefix(d.Token, "dead") {
			out[i] = n.Delivery{Outcome: n.OutcomeDeadToken}
			continue
		}
		out[i] = n.Delivery{Outcome: n.OutcomeDelivered, Ticket: "ticket-" + d.Token}
	}
	return out
}
