package tests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"tandem/adapters/sqlstore/sqltest"
)

// Crashes: the real `tandem serve` binary, killed with SIGKILL in the middle
// of a write and upload load, restarted on the same database and blob
// directory. Every acknowledged write is there; no image row lacks its
// file; the sweep removes the files a crash left without a row and the
// temporary files of cut uploads; each write and its change feed record
// committed together (issue 47): the feed puts exactly the stored messages.

var tandemBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "tandem-bin-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "tandem")
	out, err := exec.Command("go", "build", "-o", bin, "../cmd/tandem").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v: %s", err, out)
	}
	return bin, nil
})

// proc is one running `tandem serve`.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	base   string
	out    *lockedBuffer
	exited chan struct{} // closed when the process has exited
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

func freePort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startTandem runs the binary with env (on top of a test base) and waits
// until it serves.
func startTandem(t *testing.T, env map[string]string) *proc {
	t.Helper()
	p := launchTandem(t, env)
	if err := p.serving(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	return p
}

// launchTandem starts the binary with env (on top of a test base) and does
// not wait.
func launchTandem(t *testing.T, env map[string]string) *proc {
	t.Helper()
	bin, err := tandemBinary()
	if err != nil {
		t.Fatal(err)
	}
	addr := freePort(t)
	base := map[string]string{"TANDEM_ADDR": addr, "TANDEM_PUBLIC_URL": "http://" + addr, "TANDEM_METRICS_ADDR": "",
		"TANDEM_MAIL": "log", "TANDEM_PUSH": "log", "TANDEM_LOG_LEVEL": "info", "TANDEM_API_KEYS": testAPIKey,
		"TANDEM_IMAGES_RATE_LIMIT": "100000", "TANDEM_RATE_LIMIT_IP": "100000", "TANDEM_SHUTDOWN_GRACE": "0s",
		"TANDEM_ENV": "development", "TANDEM_WRITE_BUDGETS": unboundedWrites}
	for k, v := range env {
		base[k] = v
	}
	cmd := exec.Command(bin, "serve")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for k, v := range base {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	p := &proc{t: t, cmd: cmd, base: "http://" + addr, out: &lockedBuffer{}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-p.exited })
	return p
}

// serving waits until the process answers /healthz; an exit or the
// timeout is an error with the process's output.
func (p *proc) serving(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if res, err := http.Get(p.base + "/healthz"); err == nil {
			res.Body.Close()
			return nil
		}
		select {
		case <-p.exited:
			return fmt.Errorf("tandem exited before serving: %s", p.out.String())
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("tandem did not start within %s: %s", timeout, p.out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (p *proc) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
}

// call sends one request; a transport error (the process died) is status 0.
func (p *proc) call(method, path, token string, body io.Reader, contentType string) (int, []byte) {
	req, _ := http.NewRequest(method, p.base+path, body)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("X-API-Key", testAPIKey)
	res, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
	if err != nil {
		return 0, nil
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

func (p *proc) callJSON(method, path, token string, v any) (int, map[string]any) {
	b, _ := json.Marshal(v)
	status, body := p.call(method, path, token, bytes.NewReader(b), "application/json")
	var m map[string]any
	_ = json.Unmarshal(body, &m)
	return status, m
}

var sixDigits = regexp.MustCompile(`\b\d{6}\b`)

// signUp makes a verified account, reading the code from the log mailer.
func (p *proc) signUp(email string) user {
	p.t.Helper()
	status, m := p.callJSON("POST", "/api/auth/signup/email", "", map[string]any{"email": email, "password": pw})
	if status != 200 {
		p.t.Fatalf("sign-up: %d %v", status, m)
	}
	id := m["userId"].(string)
	var code string
	for deadline := time.Now().Add(5 * time.Second); code == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		sc := bufio.NewScanner(strings.NewReader(p.out.String()))
		for sc.Scan() {
			var line struct{ Msg, To, Text string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "mail" && line.To == email {
				code = sixDigits.FindString(line.Text)
			}
		}
	}
	status, m = p.callJSON("POST", "/api/auth/signup/email", "", map[string]any{"userId": id, "verificationCode": code})
	if status != 200 {
		p.t.Fatalf("verify: %d %v", status, m)
	}
	return user{ID: id, Token: m["token"].(string)}
}

// crashLoad writes messages and uploads photos until the process dies,
// recording what was acknowledged.
type crashLoad struct {
	mu       sync.Mutex
	messages []string
	images   []string // keys
}

func (l *crashLoad) run(t *testing.T, p *proc, u user, photo []byte) *sync.WaitGroup {
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				if w%2 == 0 {
					status, m := p.callJSON("POST", "/api/messages/send", u.Token, map[string]any{"body": fmt.Sprintf("crash %d-%d", w, i)})
					if status == 0 {
						return
					}
					if status == 200 {
						l.mu.Lock()
						l.messages = append(l.messages, m["id"].(string))
						l.mu.Unlock()
					}
					continue
				}
				body, ct := multipartBody(t, filePart("p.png", "image/png", photo))
				status, b := p.call("POST", "/api/users/user/"+u.ID+"/images", u.Token, bytes.NewReader(body), ct)
				if status == 0 {
					return
				}
				var up uploaded
				if status == 200 && json.Unmarshal(b, &up) == nil {
					l.mu.Lock()
					for _, f := range up.Files {
						l.images = append(l.images, f.Data.Key)
					}
					l.mu.Unlock()
				}
			}
		}()
	}
	return &wg
}

func TestFaultCrashKeepsEveryAcknowledgedWrite(t *testing.T) {
	parallel(t)
	for _, prof := range profiles(t) {
		if prof.sql == "" {
			continue // a memory store does not survive a crash by design
		}
		t.Run(prof.name, func(t *testing.T) {
			parallel(t)
			blobs := t.TempDir()
			env := map[string]string{"TANDEM_DB": string(prof.sql) + ":" + sqltest.Migrated(t, prof.sql).DSN,
				"TANDEM_BLOBS": "file:" + blobs, "TANDEM_SWEEP_INTERVAL": "200ms", "TANDEM_SWEEP_GRACE": "1s"}
			p := startTandem(t, env)
			u := p.signUp("crash@x.io")
			start := p.feedCursor(u)
			photo := noisyPNG(t, 120, 120)
			load := &crashLoad{}
			wg := load.run(t, p, u, photo)
			time.Sleep(1500 * time.Millisecond)
			p.kill()
			wg.Wait()
			// what a crash can leave: a file without a row, a temporary file
			dir := filepath.Join(blobs, "u", u.ID)
			_ = os.MkdirAll(dir, 0o750)
			_ = os.WriteFile(filepath.Join(dir, strings.Repeat("f", 32)+".png"), photo, 0o640)
			_ = os.WriteFile(filepath.Join(dir, ".tmp-crashed"), photo[:100], 0o640)

			p = startTandem(t, env)
			stored := p.messageIDs(u)
			for _, id := range load.messages {
				if !stored[id] {
					t.Fatalf("acknowledged message %s lost (%d listed)", id, len(stored))
				}
			}
			for _, key := range load.images {
				if status, b := p.call("GET", "/files/"+key, "", nil, ""); status != 200 || !bytes.Equal(b, photo) {
					t.Fatalf("acknowledged image %s: %d", key, status)
				}
			}
			// a write whose transaction the kill cut left neither the write nor its change
			put := p.feedPuts(u, start, "message")
			for id := range stored {
				if !put[id] {
					t.Fatalf("stored message %s has no change in the feed", id)
				}
			}
			for id := range put {
				if !stored[id] {
					t.Fatalf("the feed puts message %s, which was never stored", id)
				}
			}
			rows := imageKeys(t, p, u)
			for _, key := range rows {
				if status, _ := p.call("GET", "/files/"+key, "", nil, ""); status != 200 {
					t.Fatalf("image row %s has no file", key)
				}
			}
			// the sweep removes what has no row, and the temporary files
			waitForCrash(t, 10*time.Second, func() bool {
				files, temps := blobFiles(t, dir)
				return len(temps) == 0 && len(files) == len(rows)
			})
			t.Logf("%s: %d messages and %d images acknowledged before SIGKILL, all found; %d stored messages, each put in the feed and no other; %d image rows, each with its file; orphans swept",
				prof.name, len(load.messages), len(load.images), len(stored), len(rows))
		})
	}
}

// feedCursor is u's change feed's current cursor.
func (p *proc) feedCursor(u user) string {
	status, m := p.callJSON("GET", "/api/users/user/"+u.ID+"/changes", u.Token, nil)
	if status != 200 || m["cursor"] == nil {
		p.t.Fatalf("feed: %d %v", status, m)
	}
	return m["cursor"].(string)
}

// feedPuts are the ids of kind put in u's feed after since, page by page.
func (p *proc) feedPuts(u user, since, kind string) map[string]bool {
	out := map[string]bool{}
	for range 1000 {
		status, body := p.call("GET", "/api/users/user/"+u.ID+"/changes?limit=500&since="+since, u.Token, nil, "")
		var page feedPage
		if status != 200 || json.Unmarshal(body, &page) != nil {
			p.t.Fatalf("feed: %d %s", status, body)
		}
		for _, c := range page.Changes {
			if c.Kind == kind && c.Op == "put" {
				out[c.ID] = true
			}
		}
		if since = page.Cursor; !page.HasMore {
			return out
		}
	}
	p.t.Fatal("the feed never ended")
	return nil
}

// messageIDs pages through u's whole thread.
func (p *proc) messageIDs(u user) map[string]bool {
	out := map[string]bool{}
	for _, m := range p.messages(u) {
		out[m["id"].(string)] = true
	}
	return out
}

// messages is u's whole thread, page by page.
func (p *proc) messages(u user) []map[string]any {
	var out []map[string]any
	cursor := ""
	for range 100 {
		req, _ := http.NewRequest("GET", p.base+"/api/messages/list?limit=500&cursor="+cursor, nil)
		req.Header.Set("Authorization", "Bearer "+u.Token)
		req.Header.Set("X-API-Key", testAPIKey)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			p.t.Fatal(err)
		}
		var page []map[string]any
		err = json.NewDecoder(res.Body).Decode(&page)
		res.Body.Close()
		if err != nil || res.StatusCode != 200 {
			p.t.Fatalf("list: %d %v", res.StatusCode, err)
		}
		out = append(out, page...)
		if cursor = res.Header.Get("X-Next-Cursor"); cursor == "" {
			return out
		}
	}
	p.t.Fatal("more than 100 pages")
	return nil
}

func imageKeys(t *testing.T, p *proc, u user) []string {
	status, body := p.call("GET", "/api/users/user/"+u.ID+"/images", u.Token, nil, "")
	var items []string // the spec's list: each image as a JSON string
	if status != 200 || json.Unmarshal(body, &items) != nil {
		t.Fatalf("images: %d %s", status, body)
	}
	var keys []string
	for _, it := range items {
		var img struct{ Key string }
		if err := json.Unmarshal([]byte(it), &img); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, img.Key)
	}
	return keys
}

func waitForCrash(t *testing.T, d time.Duration, ok func() bool) {
	t.Helper()
	for start := time.Now(); !ok(); time.Sleep(50 * time.Millisecond) {
		if time.Since(start) > d {
			t.Fatal("the sweep did not remove the orphan files")
		}
	}
}
