package core

import (
	"context"
	"time"
)

// Broadcast carries messages to every process of one deployment (TANDEM_BUS):
// token revocations and the live partner stream. Delivery is at most once: a
// process that is down or cut off misses what was sent meanwhile, so nothing
// that must not be lost travels only here (the inbox, the reminder claims and
// the sessions are in the database). Every subscription receives each
// message published after it was made, the publishing process's own included.
type Broadcast interface {
	// Publish sends data on topic without waiting for delivery. An error (the
	// broker unreachable and the reconnect buffer full) is for the logs and
	// the metrics: a caller never fails a request on it. ctx is not a
	// deadline: the bus carries its trace context (if any) to the receivers.
	Publish(ctx context.Context, topic string, data []byte) error
	// Subscribe calls handle with each message on topic, in the order of
	// arrival and never concurrently for one subscription; handle must not
	// block (hand slow work to a goroutine of your own). The data must not
	// be kept after handle returns. ctx carries the publisher's trace
	// context (the span of the request that published), never a deadline.
	Subscribe(topic string, handle func(ctx context.Context, data []byte)) (unsubscribe func(), err error)
	// Flush waits, at most timeout, until what was published so far has
	// left this process (a revocation, before the logout is answered).
	Flush(timeout time.Duration) error
	// OnGap calls gap each time this process may have missed messages it
	// was subscribed to: after it reconnected to the broker (its
	// subscriptions restored by then), or after a subscription dropped
	// messages it fell behind on. What was missed is not known, so the
	// subscriber re-reads what matters from the store. gap must not block.
	// A bus that never loses messages (in-process) never calls it.
	OnGap(gap func()) (stop func())
	// OnDisconnect calls lost each time this process loses the broker,
	// before any message after the loss is delivered (a gap follows once
	// it is back): what arrives from then on may come after a revocation
	// this process never heard. lost must not block. A bus that never loses
	// the broker never calls it.
	OnDisconnect(lost func()) (stop func())
}

// The topics of the Broadcast.
const (
	// TopicRevoke carries the hashes of revoked tokens.
	TopicRevoke = "revoke"
	// TopicLive carries live-stream events, one message per reader.
	TopicLive = "live"
)
