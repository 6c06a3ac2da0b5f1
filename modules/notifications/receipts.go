package notifications

import (
	"context"
	"fmt"
	"time"

	"tandem/core"
)

// Ticket is a push the provider accepted and reports on later (a provider's
// ticket): its id, the device it went to and when.
type Ticket struct {
	ID       string
	DeviceID string
	SentAt   time.Time
}

// ReceiptStatus is what a provider's receipt says of a ticket.
type ReceiptStatus uint8

const (
	// ReceiptOK: handed to the platform's push service (Apple, Google).
	ReceiptOK ReceiptStatus = iota + 1
	// ReceiptFailed: not delivered, for a reason that leaves the token
	// usable (too big, rate exceeded, credentials...).
	ReceiptFailed
	// ReceiptDeadToken: the token will never work again
	// (DeviceNotRegistered); the device is removed.
	ReceiptDeadToken
)

// Receipt is a provider's later report on one ticket; Error is its error
// code and message, for the log.
type Receipt struct {
	Status ReceiptStatus
	Error  string
}

const (
	// DefaultReceiptDelay is how long after a push its receipt is first
	// read, as the provider that hands out tickets recommends
	// (TANDEM_PUSH_RECEIPT_DELAY).
	DefaultReceiptDelay = 15 * time.Minute
	// TicketMaxAge is how long a ticket without a receipt is asked about:
	// the provider keeps receipts for a day, so a later answer never comes.
	TicketMaxAge = 24 * time.Hour
	// ReceiptBatch is the most ids of one ReceiptReader call (the provider's
	// limit),
	// and so the most tickets one claim takes.
	ReceiptBatch = 1000
)

// ReceiptSettings configure the receipt job.
type ReceiptSettings struct {
	// Delay is the least time between a push and the first read of its
	// receipt, and between two reads of a receipt not ready yet.
	Delay time.Duration
}

// Receipts reads the providers' receipts of accepted pushes, a delay after
// them, in batches: a dead token removes its device, any other answer is
// logged and the ticket forgotten; a ticket without a receipt is asked
// about again a delay later, until TicketMaxAge, then dropped. Every
// process may run it at once: each batch is claimed in the database first.
type Receipts struct {
	tickets TicketRepository
	devices Repository
	reader  ReceiptReader
	log     ReceiptLog
	clock   core.Clock
	delay   time.Duration
}

// NewReceipts is a plain constructor, usable without fx; a Delay of zero is
// DefaultReceiptDelay.
func NewReceipts(tickets TicketRepository, devices Repository, reader ReceiptReader, log ReceiptLog, clock core.Clock, s ReceiptSettings) *Receipts {
	if s.Delay <= 0 {
		s.Delay = DefaultReceiptDelay
	}
	return &Receipts{tickets: tickets, devices: devices, reader: reader, log: log, clock: clock, delay: s.Delay}
}

// CheckDue reads the receipts of every ticket due for a check and returns
// how many tickets it settled (answered or dropped). A provider or database
// failure ends the pass; the tickets it claimed come back a delay later.
func (r *Receipts) CheckDue(ctx context.Context) (int, error) {
	settled := 0
	for {
		now := r.clock.Now()
		batch, err := r.tickets.ClaimTickets(ctx, now.Add(-r.delay), now, ReceiptBatch)
		if err != nil || len(batch) == 0 {
			return settled, err
		}
		n, err := r.settle(ctx, batch, now)
		settled += n
		if err != nil {
			return settled, err
		}
		if len(batch) < ReceiptBatch {
			return settled, nil
		}
	}
}

// settle applies the receipts of one claimed batch.
func (r *Receipts) settle(ctx context.Context, batch []Ticket, now time.Time) (int, error) {
	ids := make([]string, len(batch))
	for i, t := range batch {
		ids[i] = t.ID
	}
	receipts, err := r.reader.Receipts(ctx, ids)
	if err != nil {
		return 0, fmt.Errorf("read %d receipts: %w", len(ids), err)
	}
	var done, dead []string
	for _, t := range batch {
		rc, ok := receipts[t.ID]
		switch {
		case ok:
			r.log.Receipt(ctx, t, rc)
			if rc.Status == ReceiptDeadToken {
				dead = append(dead, t.DeviceID)
			}
		case now.Sub(t.SentAt) >= TicketMaxAge:
			r.log.Unanswered(ctx, t)
		default:
			continue // not ready yet: claimed at now, asked again a delay later
		}
		done = append(done, t.ID)
	}
	if len(dead) > 0 {
		if err := r.devices.RemoveDevices(ctx, dead); err != nil {
			return 0, err
		}
	}
	if len(done) == 0 {
		return 0, nil
	}
	if err := r.tickets.DeleteTickets(ctx, done); err != nil {
		return 0, err
	}
	return len(done), nil
}
