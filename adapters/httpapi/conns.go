package httpapi

import (
	"errors"
	"io"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
)

// conns is the server's listener. It knows every connection it accepted
// and whether a request is in hand on it, so that a stop can stop accepting
// at once, keep answering the connections already open, and at the end of
// the grace end only those that are between requests or never sent one.
//
// It never closes a connection itself: fasthttp reads and answers on its
// own goroutine, and a socket closed under it after a request was read
// loses that request's answer (fasthttp panics setting the write deadline
// of a closed connection). Ending is a read that reports end of stream, on
// which fasthttp closes the connection as it does when a client leaves.
type conns struct {
	net.Listener
	// troubled hears when Accept starts to fail with an error that passes
	// (the first of a run) and when it accepts again (nil): the log.
	troubled  func(err error)
	mu        sync.Mutex
	open      map[*conn]struct{}
	accepting int  // Accept calls under way: a connection may yet join
	closed    bool // the listener is closed; Close is idempotent
	closeErr  error
}

func newConns(ln net.Listener) *conns {
	return &conns{Listener: ln, open: map[*conn]struct{}{}}
}

// Accept retries the errors that pass (out of file descriptors, a
// connection aborted before it was taken, no buffers) with a pause that
// doubles from 5 ms to a second, as net/http's server does: fasthttp ends
// its serve loop on any error but a timeout, and a process that ran out of
// files would stay deaf after they came back. A closed listener's error
// never passes.
func (l *conns) Accept() (net.Conn, error) {
	var pause time.Duration
	for {
		c, err := l.accept()
		if err == nil || !passes(err) {
			if pause > 0 && l.troubled != nil && err == nil {
				l.troubled(nil)
			}
			return c, err
		}
		if pause == 0 && l.troubled != nil {
			l.troubled(err)
		}
		pause = min(max(2*pause, acceptPauseMin), acceptPauseMax)
		time.Sleep(pause)
	}
}

const (
	acceptPauseMin = 5 * time.Millisecond
	acceptPauseMax = time.Second
)

// passes says whether an Accept error is the moment's, not the listener's.
func passes(err error) bool {
	for _, e := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ECONNABORTED, syscall.ENOBUFS, syscall.ENOMEM} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

func (l *conns) accept() (net.Conn, error) {
	l.mu.Lock()
	l.accepting++
	l.mu.Unlock()
	c, err := l.Listener.Accept()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.accepting--
	if err != nil {
		return nil, err
	}
	w := &conn{Conn: c, owner: l}
	l.open[w] = struct{}{}
	return w, nil
}

// Close stops accepting; the connections accepted stay open. fasthttp's
// shutdown closes the listener again after the stop did.
func (l *conns) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.closed = true
		l.closeErr = l.Listener.Close()
	}
	return l.closeErr
}

// remaining counts the connections still open, and those about to be
// accepted.
func (l *conns) remaining() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.open) + l.accepting
}

// endIdle ends every connection with no request in hand (between two, or
// before the first) and says how many it ended. One whose request comes as
// it ends is answered all the same (see conn.Read).
func (l *conns) endIdle() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for w := range l.open {
		if w.end() {
			n++
		}
	}
	return n
}

// connState is fasthttp's hook: an idle connection has written its answer
// and waits for another request.
func (l *conns) connState(c net.Conn, st fasthttp.ConnState) {
	if w, ok := c.(*conn); ok && st == fasthttp.StateIdle {
		w.mu.Lock()
		w.busy = false
		w.mu.Unlock()
	}
}

func (l *conns) forget(w *conn) {
	l.mu.Lock()
	delete(l.open, w)
	l.mu.Unlock()
}

type conn struct {
	net.Conn
	owner    *conns
	mu       sync.Mutex
	busy     bool      // bytes of a request came since the last answer
	ended    bool      // the stop ended it: reads report end of stream
	deadline time.Time // the read deadline fasthttp asked for
}

// longAgo is a read deadline in the past: it wakes a read under way.
var longAgo = time.Unix(1, 0)

// end ends a connection with no request in hand: a read under way wakes and,
// as every later one, reports end of stream.
func (w *conn) end() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.busy || w.ended {
		return false
	}
	w.ended = true
	_ = w.Conn.SetReadDeadline(longAgo)
	return true
}

func (w *conn) Read(b []byte) (int, error) {
	w.mu.Lock()
	ended := w.ended
	w.mu.Unlock()
	if ended {
		return 0, io.EOF
	}
	n, err := w.Conn.Read(b)
	w.mu.Lock()
	defer w.mu.Unlock()
	if n > 0 {
		w.busy = true
		if w.ended { // a request came as the stop ended the connection: it is answered
			w.ended = false
			_ = w.Conn.SetReadDeadline(w.deadline)
		}
		return n, err
	}
	if w.ended { // woken by end
		return 0, io.EOF
	}
	return n, err
}

func (w *conn) SetReadDeadline(t time.Time) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.deadline = t
	if w.ended {
		return nil
	}
	return w.Conn.SetReadDeadline(t)
}

func (w *conn) SetDeadline(t time.Time) error {
	if err := w.Conn.SetWriteDeadline(t); err != nil {
		return err
	}
	return w.SetReadDeadline(t)
}

func (w *conn) Close() error {
	w.owner.forget(w)
	return w.Conn.Close()
}
