package httpapi

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// listen is a conns on a loopback port, with a dialled connection and its
// accepted side.
func listen(t *testing.T) (*conns, net.Conn, net.Conn) {
	t.Helper()
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := newConns(raw)
	t.Cleanup(func() { _ = ln.Close() })
	client, err := net.Dial("tcp", raw.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = server.Close() })
	return ln, client, server
}

// Closing the listener refuses new connections and leaves the accepted
// ones, even one that never sent a byte, open and served.
func TestClosingTheListenerLeavesAcceptedConnectionsOpen(t *testing.T) {
	t.Parallel()
	ln, client, server := listen(t)
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ln.Close(); err != nil { // fasthttp's shutdown closes it again
		t.Fatalf("a second close: %v", err)
	}
	if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		c.Close()
		t.Fatal("a closed listener accepted a connection")
	}
	if ln.remaining() != 1 {
		t.Fatalf("%d connections open, want 1", ln.remaining())
	}
	_, _ = client.Write([]byte("GET / HTTP/1.1\r\n"))
	buf := make([]byte, 64)
	_ = server.SetReadDeadline(time.Now().Add(time.Second))
	if n, err := server.Read(buf); err != nil || n == 0 {
		t.Fatalf("the accepted connection no longer reads: %d, %v", n, err)
	}
	_ = server.Close()
	if ln.remaining() != 0 {
		t.Fatalf("%d connections open after the close, want 0", ln.remaining())
	}
}

// endIdle ends a connection waiting for its first request or its next one:
// the read under way reports end of stream, as do later ones, whatever
// deadline fasthttp sets. A connection with a request in hand is left
// until its answer is written.
func TestEndIdleEndsOnlyConnectionsWithNoRequestInHand(t *testing.T) {
	t.Parallel()
	ln, client, server := listen(t)
	buf := make([]byte, 64)
	_, _ = client.Write([]byte("GET / HTTP/1.1\r\n"))
	if _, err := server.Read(buf); err != nil {
		t.Fatal(err)
	}
	if n := ln.endIdle(); n != 0 {
		t.Fatalf("a connection with a request in hand was ended (%d)", n)
	}
	ln.connState(server, fasthttp.StateIdle) // the answer is written
	read := make(chan error, 1)
	go func() {
		_ = server.SetReadDeadline(time.Now().Add(time.Minute))
		_, err := server.Read(buf)
		read <- err
	}()
	time.Sleep(20 * time.Millisecond) // the read waits for the next request
	if n := ln.endIdle(); n != 1 {
		t.Fatalf("%d connections ended, want the idle one", n)
	}
	select {
	case err := <-read:
		if !errors.Is(err, io.EOF) {
			t.Fatalf("the read under way got %v, want end of stream", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the read under way was not woken")
	}
	_ = server.SetReadDeadline(time.Now().Add(time.Minute))
	if _, err := server.Read(buf); !errors.Is(err, io.EOF) {
		t.Fatalf("a later read got %v, want end of stream", err)
	}
	if _, err := server.Write([]byte("HTTP/1.1 200 OK\r\n")); err != nil {
		t.Fatalf("an ended connection can no longer write: %v", err)
	}
}

// A request that comes as the connection is ended is read and answered:
// the read is not cut short, and the deadline fasthttp set is back.
func TestARequestArrivingAsTheConnectionEndsIsKept(t *testing.T) {
	t.Parallel()
	f := &heldConn{entered: make(chan struct{}), release: make(chan struct{})}
	ln := newConns(nil)
	w := &conn{Conn: f, owner: ln}
	ln.open[w] = struct{}{}
	want := time.Now().Add(time.Minute)
	_ = w.SetReadDeadline(want)
	got := make(chan int, 1)
	go func() {
		n, _ := w.Read(make([]byte, 8))
		got <- n
	}()
	<-f.entered // the bytes are on their way up
	if ln.endIdle() != 1 {
		t.Fatal("the idle connection was not ended")
	}
	close(f.release)
	if n := <-got; n == 0 {
		t.Fatal("the request's bytes were dropped")
	}
	if !f.deadline.Equal(want) {
		t.Fatalf("read deadline %v, want fasthttp's %v back", f.deadline, want)
	}
	if n, err := w.Read(make([]byte, 8)); n == 0 || err != nil {
		t.Fatalf("the rest of the request: %d, %v", n, err)
	}
	if ln.endIdle() != 0 {
		t.Fatal("the connection with a request in hand was ended")
	}
}

// heldConn is a connection whose first read returns bytes once released.
type heldConn struct {
	net.Conn
	entered, release chan struct{}
	once             sync.Once
	deadline         time.Time
}

func (f *heldConn) Read(b []byte) (int, error) {
	f.once.Do(func() { close(f.entered) })
	<-f.release
	return copy(b, "GET / HT"), nil
}

func (f *heldConn) SetReadDeadline(t time.Time) error { f.deadline = t; return nil }

// failingListener fails its first Accepts with errs, then accepts from
// the real listener.
type failingListener struct {
	net.Listener
	mu   sync.Mutex
	errs []error
}

func (f *failingListener) Accept() (net.Conn, error) {
	f.mu.Lock()
	if len(f.errs) > 0 {
		err := f.errs[0]
		f.errs = f.errs[1:]
		f.mu.Unlock()
		return nil, err
	}
	f.mu.Unlock()
	return f.Listener.Accept()
}

// A process out of file descriptors keeps listening: the errors that pass
// are retried, and the first connection after them is accepted; the
// listener's own end is no error to retry.
func TestAcceptRetriesTheErrorsThatPass(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	emfile := &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	aborted := &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.ECONNABORTED)}
	ln := newConns(&failingListener{Listener: raw, errs: []error{emfile, emfile, aborted}})
	var heard []error
	ln.troubled = func(err error) { heard = append(heard, err) }
	t.Cleanup(func() { _ = ln.Close() })
	client, err := net.Dial("tcp", raw.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	c, err := ln.Accept()
	if err != nil {
		t.Fatalf("the accept gave up: %v", err)
	}
	defer c.Close()
	if len(heard) != 2 || heard[0] != emfile || heard[1] != nil {
		t.Fatalf("the log heard %v, want the first error then the recovery", heard)
	}
	_ = ln.Close()
	if _, err := ln.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("a closed listener: %v", err)
	}
	for _, tc := range []struct {
		err  error
		pass bool
	}{{emfile, true}, {aborted, true}, {net.ErrClosed, false}, {io.EOF, false}, {syscall.ENFILE, true}} {
		if passes(tc.err) != tc.pass {
			t.Errorf("passes(%v) = %v", tc.err, !tc.pass)
		}
	}
}
