// Package natstest runs an in-process NATS server for tests, so they need
// nothing running on the machine.
package natstest

import (
	"net"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Server is a NATS server on a free loopback port.
type Server struct {
	*server.Server
	opts *server.Options
}

// Start runs a server until the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	return StartAt(t, -1)
}

// StartAt runs a server on port (-1: any free port) until the test ends.
func StartAt(t testing.TB, port int) *Server {
	t.Helper()
	opts := &server.Options{Host: "127.0.0.1", Port: port, NoLog: true, NoSigs: true}
	s, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("natstest: the server did not start")
	}
	t.Cleanup(s.Shutdown)
	return &Server{Server: s, opts: opts}
}

// URL is nats://127.0.0.1:PORT.
func (s *Server) URL() string { return s.ClientURL() }

// Port is the port listened on.
func (s *Server) Port() int { return s.Addr().(*net.TCPAddr).Port }
