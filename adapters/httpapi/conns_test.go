package httpapi

import (
	"net"
	"testing"
	"time"
)

// A connection that never sent a byte is closed with the listener; one
// that spoke is left to the server.
func TestSilentConnsAreClosedWithTheListener(t *testing.T) {
	t.Parallel()
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := newSilentConns(raw)
	silent, _ := net.Dial("tcp", raw.Addr().String())
	spoke, _ := net.Dial("tcp", raw.Addr().String())
	defer silent.Close()
	defer spoke.Close()
	a, _ := ln.Accept()
	b, _ := ln.Accept()
	_, _ = spoke.Write([]byte("GET / HTTP/1.1\r\n"))
	buf := make([]byte, 64)
	// which accepted side is which depends on the accept order
	for _, c := range []net.Conn{a, b} {
		_ = c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		_, _ = c.Read(buf)
	}
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	_ = silent.SetReadDeadline(time.Now().Add(time.Second))
	if _, err := silent.Read(buf); err == nil {
		t.Fatal("the silent connection is still open")
	}
	_ = spoke.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if _, err := spoke.Read(buf); err == nil || !isTimeout(err) {
		t.Fatalf("the connection that spoke was closed: %v", err)
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}
