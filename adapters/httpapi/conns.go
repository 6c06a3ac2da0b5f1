package httpapi

import (
	"net"
	"sync"
	"sync/atomic"
)

// silentConns is a listener that remembers the connections that have not
// sent a byte yet. fasthttp counts a new connection as busy from its accept
// (it waits up to the read timeout for a first request), so a connection a
// client or a load balancer opened ahead and never used would hold a
// shutdown for 30 s; these are closed once the drain's grace is over.
type silentConns struct {
	net.Listener
	mu    sync.Mutex
	conns map[*watchedConn]struct{}
}

func newSilentConns(ln net.Listener) *silentConns {
	return &silentConns{Listener: ln, conns: map[*watchedConn]struct{}{}}
}

func (l *silentConns) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	w := &watchedConn{Conn: c, owner: l}
	l.mu.Lock()
	l.conns[w] = struct{}{}
	l.mu.Unlock()
	return w, nil
}

// Close stops accepting, then closes the connections that never spoke:
// fasthttp's shutdown would wait for their first request until the read
// timeout.
func (l *silentConns) Close() error {
	err := l.Listener.Close()
	l.closeSilent()
	return err
}

// closeSilent closes every connection that never sent anything: no request
// can be lost on it.
func (l *silentConns) closeSilent() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for w := range l.conns {
		if !w.spoke.Load() {
			_ = w.Conn.Close()
		}
		delete(l.conns, w)
	}
}

// silent counts the connections that have not sent a byte yet.
func (l *silentConns) silent() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns)
}

func (l *silentConns) forget(w *watchedConn) {
	l.mu.Lock()
	delete(l.conns, w)
	l.mu.Unlock()
}

type watchedConn struct {
	net.Conn
	owner *silentConns
	spoke atomic.Bool
}

func (w *watchedConn) Read(b []byte) (int, error) {
	n, err := w.Conn.Read(b)
	if n > 0 && !w.spoke.Load() {
		w.spoke.Store(true)
		w.owner.forget(w) // only silent connections are of interest
	}
	return n, err
}

func (w *watchedConn) Close() error {
	w.owner.forget(w)
	return w.Conn.Close()
}
