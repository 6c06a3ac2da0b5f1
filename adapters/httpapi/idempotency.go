package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"go.uber.org/zap"

	"tandem/adapters/web"
	"tandem/core"
	"tandem/modules/idempotency"
)

var _ = documentRulesOf("idempotency", idempotency.Rules)

// Header names of the Idempotency-Key contract (IETF httpapi draft).
const (
	HeaderIdempotencyKey = "Idempotency-Key"
	// HeaderReplayed marks an answer given again from the store, not by
	// running the request a second time.
	HeaderReplayed = "Idempotent-Replayed"
)

// settleTimeout bounds the write that stores or releases a key after the
// answer; it runs even when the request's own deadline has passed.
const settleTimeout = 5 * time.Second

// Idempotency guards the create routes: with an Idempotency-Key header the
// first completed answer is kept per (user, key) for 24 hours and replayed to
// a retry of the same request; without the header nothing changes. It runs
// as the last middleware of a route, after its guards and rate limits: a
// caller turned away never holds a key. A new key spends the user's budget
// of keys (idempotency.Service.Begin: 429 beyond, nothing kept); a create
// its service refuses for the user's write budget answers 429, which is
// released like any 429.
type Idempotency struct {
	svc *idempotency.Service
	log *zap.Logger
}

func NewIdempotency(svc *idempotency.Service, log *zap.Logger) *Idempotency {
	return &Idempotency{svc: svc, log: log}
}

// Guard is the route middleware.
func (g *Idempotency) Guard(c *fiber.Ctx) error {
	keys := c.Request().Header.PeekAll(HeaderIdempotencyKey)
	switch len(keys) {
	case 0:
		return c.Next()
	case 1:
	default: // which one the client meant is anyone's guess
		return core.Invalid("invalid_request", "httpapi.sendOneIdempotencyKeyHeader", "send one Idempotency-Key header")
	}
	key := string(keys[0])
	p, err := principal(c)
	if err != nil {
		return err
	}
	fp := newFingerprint(c)
	claim, replay, err := g.svc.Begin(c.UserContext(), p.UserID, key, fp.sum)
	switch {
	case err != nil && claim != nil: // the claim may commit after all: never leave it to its lease
		g.settle(c, func(ctx context.Context) error { return g.svc.Release(ctx, claim) })
		return cutByBreaker(c, err)
	case err != nil:
		return cutByBreaker(c, err)
	case replay != nil:
		c.Status(replay.Status)
		if replay.ContentType != "" {
			c.Set(fiber.HeaderContentType, replay.ContentType)
		}
		c.Set(HeaderReplayed, "true")
		return c.Send(endedJSON(replay.ContentType, replay.Body))
	}
	settled := false
	defer func() {
		if !settled { // a panic: the request did not answer, it may run again
			g.settle(c, func(ctx context.Context) error { return g.svc.Release(ctx, claim) })
		}
	}()
	defer g.keepAlive(c, claim)()
	c.SetUserContext(idempotency.WithPending(c.UserContext(), claim.Pending())) // the create commits with the key's mark
	if err := cutByBreaker(c, c.Next()); err != nil {
		// Rendered here, as accessLog would, so the answer can be kept.
		if herr := c.App().ErrorHandler(c, err); herr != nil {
			_ = c.SendStatus(fiber.StatusInternalServerError)
		}
	}
	settled = true
	res := c.Response()
	answer := idempotency.Answer{Status: res.StatusCode(), ContentType: string(res.Header.ContentType()), Body: res.Body()}
	sum, whole := fp.final()
	if !whole {
		// An upload refused before its body was read to the end: nothing
		// was created and the whole body was never hashed; the retry runs.
		g.settle(c, func(ctx context.Context) error { return g.svc.Release(ctx, claim) })
		return nil
	}
	g.settle(c, func(ctx context.Context) error { return g.svc.Finish(ctx, claim, sum, answer) })
	return nil
}

// endedJSON is a kept JSON answer ending with a newline, as encodeJSON
// ends every answer now: those kept by an earlier version have none.
func endedJSON(contentType string, body []byte) []byte {
	if len(body) == 0 || body[len(body)-1] == '\n' || !strings.HasPrefix(contentType, fiber.MIMEApplicationJSON) {
		return body
	}
	return append(body[:len(body):len(body)], '\n')
}

// settle stores or releases a key after the answer was made. A failure is
// logged, not answered, and tried again off the request, every
// settleRetry until it takes or the claim's lease ends (a key is not left
// claimed by a request that is gone longer than the database is).
func (g *Idempotency) settle(c *fiber.Ctx, fn func(ctx context.Context) error) {
	base := context.WithoutCancel(c.UserContext())
	if g.settleOnce(base, fn) == nil {
		return
	}
	g.log.Warn("idempotency key not settled; trying again", web.LogIDs(c), zap.String("path", c.Path()))
	go func() {
		until := time.Now().Add(g.svc.Lease())
		for time.Now().Before(until) {
			time.Sleep(settleRetry)
			if err := g.settleOnce(base, fn); err == nil {
				return
			}
		}
		g.log.Warn("idempotency key not settled within its lease")
	}()
}

func (g *Idempotency) settleOnce(base context.Context, fn func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(base, settleTimeout)
	defer cancel()
	return fn(ctx)
}

// keepAlive renews claim every third of its lease while the request runs,
// and returns what stops it: a key outlives its request by a lease at most.
func (g *Idempotency) keepAlive(c *fiber.Ctx, claim *idempotency.Claim) (stop func()) {
	done := make(chan struct{})
	base := context.WithoutCancel(c.UserContext())
	go func() {
		t := time.NewTicker(g.svc.Lease() / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				_ = g.settleOnce(base, func(ctx context.Context) error { return g.svc.Renew(ctx, claim) })
			}
		}
	}()
	return func() { close(done) }
}

// settleRetry is the pause between two tries at settling a key.
const settleRetry = time.Second

// fingerprint is the SHA-256 of the method, the path and the raw body. A
// body read before the handlers (every route but the upload) is hashed at
// once; the upload's stream is hashed as the handler reads it, so its up to
// 40 MiB are never held to be hashed.
type fingerprint struct {
	h      hash.Hash
	stream *cappedReader // the upload's unread body; nil otherwise
}

func newFingerprint(c *fiber.Ctx) *fingerprint {
	f := &fingerprint{h: sha256.New()}
	f.h.Write([]byte(c.Method() + "\n" + c.Path() + "\n"))
	if body, ok := c.Locals(localBody).(*cappedReader); ok && !body.done {
		body.r = io.TeeReader(body.r, f.h)
		f.stream = body
		return f
	}
	f.h.Write(c.Request().Body())
	return f
}

// sum is the fingerprint for a comparison before the handler runs: an
// upload's body is read (and dropped) to its end for it.
func (f *fingerprint) sum() (string, error) {
	if f.stream != nil && !f.stream.done {
		if _, err := io.Copy(io.Discard, f.stream); err != nil {
			if f.stream.over {
				return "", tooLarge(int(f.stream.read - 1))
			}
			return "", err
		}
	}
	s, _ := f.final()
	return s, nil
}

// final is the fingerprint once the handler has run, and whether it covers
// the whole body.
func (f *fingerprint) final() (string, bool) {
	return hex.EncodeToString(f.h.Sum(nil)), f.stream == nil || f.stream.done
}
