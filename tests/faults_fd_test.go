package tests

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// A process out of file descriptors keeps its listener: `tandem serve`
// under a low descriptor limit gets more connections than the limit
// allows, so its accepts fail (EMFILE) for as long as they stay open; once
// they close, a new request is answered. Before, the first EMFILE ended
// fasthttp's serve loop and the process stayed deaf for good.
func TestFaultOutOfFileDescriptorsThenRecovery(t *testing.T) {
	parallel(t)
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Fatal("prlimit (util-linux) is needed to lower the process's file limit")
	}
	p := startTandem(t, map[string]string{"TANDEM_DB": "sqlite:" + filepath.Join(t.TempDir(), "fd.db")})
	pid := p.cmd.Process.Pid
	limit := openFiles(t, pid) + 20
	if out, err := exec.Command("prlimit", "--pid", strconv.Itoa(pid), fmt.Sprintf("--nofile=%d:%d", limit, limit)).CombinedOutput(); err != nil {
		t.Fatalf("prlimit: %v %s", err, out)
	}
	var held []net.Conn
	for range 60 { // 40 more than the process can take
		c, err := net.Dial("tcp", p.base[len("http://"):])
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	waitFor(t, 10*time.Second, "the process to reach its file limit", func() bool { return openFiles(t, pid) >= limit })
	for _, c := range held {
		_ = c.Close()
	}
	client := &http.Client{Timeout: time.Second}
	waitFor(t, 15*time.Second, "an answer after the connections closed", func() bool {
		res, err := client.Get(p.base + "/healthz")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == 200
	})
}

// openFiles counts the process's open file descriptors.
func openFiles(t *testing.T, pid int) int {
	t.Helper()
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	return len(fds)
}
