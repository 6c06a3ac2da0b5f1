// This file is the live stream's endpoint: GET .../stream opens a
// connection, attaches it to the hub (stream_hub.go) and writes what the
// hub queues for it as Server-Sent Events until it ends.

package httpapi

import (
	"bufio"
	"net"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"tandem/core"
	"tandem/modules/accounts"
)

// maxLastEventID bounds the Last-Event-ID a client sends back, with room
// for any id the hub hands out.
const maxLastEventID = 64

var _ = documentRulesOf("httpapi", core.Rules{Limits: map[string]int{"MaxLastEventID": maxLastEventID}})

func (h *Streams) Register(r fiber.Router) {
	r.Get("/api/users/user/:userId/stream", requireSelf, h.open)
}

// open serves GET /api/users/user/{userId}/stream as Server-Sent Events.
func (h *Streams) open(c *fiber.Ctx) error {
	token, _ := bearerToken(c.Get(fiber.HeaderAuthorization))
	p, _ := core.PrincipalFrom(c.UserContext()) // requireSelf let only a caller through
	lastID := c.Get("Last-Event-ID")
	if len(lastID) > maxLastEventID {
		return core.TooLong("Last-Event-ID", maxLastEventID)
	}
	s, err := h.attach(c.Params("userId"), accounts.HashToken(token))
	if err != nil {
		return err
	}
	reset, err := h.position(c.UserContext(), s, lastID)
	if err != nil {
		h.detach(s)
		return err
	}
	c.Set(fiber.HeaderContentType, "text/event-stream; charset=utf-8")
	c.Set("X-Accel-Buffering", "no") // nginx: pass each event on at once
	conn := c.Context().Conn()
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		defer h.detach(s)
		h.serve(&sseWriter{w: w, conn: conn, timeout: h.write}, s, reset, p.ExpiresAt)
	})
	return nil
}

// serve writes the stream until it ends, its token expires or the client is
// gone: first what the feed holds after the position, then each event as
// the bus brings it, after the feed's changes before it. The token was
// checked once, at open: without the timer a stream would go on carrying
// the partner's life long after its token died.
func (h *Streams) serve(w *sseWriter, s *stream, reset bool, expires time.Time) {
	w.raw(": connected\nretry: 3000\n\n")
	if reset {
		w.raw("event: reset\ndata: {}\n\n")
	}
	h.follow(w, s)
	heartbeat := time.NewTicker(h.cfg.Heartbeat)
	defer heartbeat.Stop()
	var expired <-chan time.Time // nil, never ready, for a principal without expiry
	if !expires.IsZero() {
		// the time left by the core clock, on a real timer (a clock has no timers)
		t := time.NewTimer(expires.Sub(h.clock.Now()))
		defer t.Stop()
		expired = t.C
	}
	for w.flush() == nil {
		select {
		case e := <-s.events:
			if !h.confirmed(s) {
				continue
			}
			h.follow(w, s) // the write's changes first: they committed before it was published
			if e.Type != catchUp.Type {
				e.ID = s.cursor() // a resume from this event reads the feed after what was written
				w.event(e)
			}
		case <-heartbeat.C:
			w.raw(": heartbeat\n\n")
		case <-expired:
			s.end("expired") // unless it already ended for another reason
			<-s.done
			w.raw("event: end\ndata: {\"reason\":" + strconv.Quote(s.reason) + "}\n\n")
			_ = w.flush()
			return
		case <-s.done:
			w.raw("event: end\ndata: {\"reason\":" + strconv.Quote(s.reason) + "}\n\n")
			_ = w.flush()
			return
		}
	}
}

// sseWriter writes the text/event-stream format. fasthttp sets one write
// deadline for a whole answer; a stream moves it forward at every flush.
type sseWriter struct {
	w       *bufio.Writer
	conn    net.Conn
	timeout time.Duration
}

func (w *sseWriter) raw(s string) { _, _ = w.w.WriteString(s) }

// event writes one event; its data is one line of JSON (encoding/json
// escapes every newline).
func (w *sseWriter) event(e liveEvent) {
	w.raw("id: " + e.ID + "\nevent: " + e.Type + "\ndata: ")
	_, _ = w.w.Write(e.Data)
	w.raw("\n\n")
}

func (w *sseWriter) flush() error {
	if w.timeout > 0 && w.conn != nil {
		_ = w.conn.SetWriteDeadline(time.Now().Add(w.timeout))
	}
	return w.w.Flush()
}
