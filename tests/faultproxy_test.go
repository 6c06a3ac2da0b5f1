package tests

import (
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// faultProxy is a TCP proxy between the app and a server (MariaDB) that a
// test can break: cut (close every connection and refuse new ones), hang
// (keep connections open but forward nothing, as a server that stopped
// answering), slow (add a delay to every chunk each way) and heal.
type faultProxy struct {
	t      testing.TB
	ln     net.Listener
	target string

	mu    sync.Mutex
	mode  string // "pass", "cut", "hang"
	delay time.Duration
	conns map[net.Conn]struct{}
}

func newFaultProxy(t testing.TB, target string) *faultProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &faultProxy{t: t, ln: ln, target: target, mode: "pass", conns: map[net.Conn]struct{}{}}
	go p.accept()
	t.Cleanup(func() { _ = ln.Close(); p.closeAll() })
	return p
}

func (p *faultProxy) Addr() string { return p.ln.Addr().String() }

func (p *faultProxy) set(mode string, delay time.Duration) {
	p.mu.Lock()
	p.mode, p.delay = mode, delay
	p.mu.Unlock()
}

// cut closes every connection and refuses new ones until heal.
func (p *faultProxy) cut() { p.set("cut", 0); p.closeAll() }

// hang forwards nothing more, on old and new connections, until heal.
func (p *faultProxy) hang() { p.set("hang", 0) }

// slow adds d to every chunk forwarded, each way.
func (p *faultProxy) slow(d time.Duration) { p.set("pass", d) }

// heal forwards again; connections a hang held are closed, as the server's
// TCP keepalive or a restart would end them.
func (p *faultProxy) heal() {
	p.mu.Lock()
	wasHanging := p.mode == "hang"
	p.mode, p.delay = "pass", 0
	p.mu.Unlock()
	if wasHanging {
		p.closeAll()
	}
}

func (p *faultProxy) state() (string, time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mode, p.delay
}

func (p *faultProxy) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		_ = c.Close()
		delete(p.conns, c)
	}
}

func (p *faultProxy) track(c net.Conn) {
	p.mu.Lock()
	p.conns[c] = struct{}{}
	p.mu.Unlock()
}

func (p *faultProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if mode, _ := p.state(); mode == "cut" {
			_ = c.Close()
			continue
		}
		go p.serve(c)
	}
}

func (p *faultProxy) serve(client net.Conn) {
	server, err := net.DialTimeout("tcp", p.target, 2*time.Second)
	if err != nil {
		_ = client.Close()
		return
	}
	p.track(client)
	p.track(server)
	go p.pipe(server, client)
	p.pipe(client, server)
}

// pipe copies src to dst chunk by chunk, obeying the mode at each chunk.
func (p *faultProxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			for {
				mode, delay := p.state()
				if mode == "cut" {
					return
				}
				if mode == "hang" {
					time.Sleep(20 * time.Millisecond) // hold the bytes, answer nothing
					continue
				}
				if delay > 0 {
					time.Sleep(delay)
				}
				break
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if err != io.EOF {
				return
			}
			return
		}
	}
}
