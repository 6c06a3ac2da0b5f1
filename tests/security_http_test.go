package tests

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/fx"

	"tandem/adapters/httpapi"
)

// Attacks on the HTTP layer itself (issue 9): bodies that flood memory,
// answers that caches keep or browsers sniff, request ids that smuggle text
// into logs and headers, and metrics on the public listener.

const (
	jsonLimit       = 256 << 10          // TANDEM_JSON_MAX_BYTES default
	uploadBodyLimit = 4*(10<<20) + 1<<20 // 4 × TANDEM_UPLOAD_MAX_BYTES + 1 MiB
	heapBudget      = 64 << 20           // what a flood may cost the process
	floodBody       = 40 << 20           // one attacker's body
	jsonTooLarge    = "request body larger than 262144 bytes"
	uploadTooLarge  = "request body larger than 42991616 bytes"
	imageTooLarge   = "each image must be at most 10485760 bytes"
	okFeedback      = `{"success":true,"feedbackId":"<string>","message":"Thank you for your feedback"}`
	uploadBoundary  = "tandemboundary"
	uploadType      = "multipart/form-data; boundary=" + uploadBoundary
	healthzResponse = `{"status":"ok"}`
)

// TestSecurityHTTPJSONRoutesRefuseFloods: eight concurrent 40 MiB bodies of
// declared length to a JSON route are each refused with 413 before they are
// read, so the process allocates far less than one of them.
func TestSecurityHTTPJSONRoutesRefuseFloods(t *testing.T) {
	for _, p := range profiles(t) { // one at a time: the heap is the process's
		t.Run(p.name, func(t *testing.T) {
			h := newHarness(t, p)
			head := "POST /api/version-check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
				fmt.Sprintf("Content-Length: %d\r\n", floodBody)
			var got [8]response
			heap := measureHeap(func() {
				var wg sync.WaitGroup
				for i := range got {
					wg.Go(func() { got[i] = rawExchange(t, h, head, &filler{left: floodBody}) })
				}
				wg.Wait()
			})
			for _, r := range got {
				expect(t, r, 413, errBody("payload_too_large", jsonTooLarge))
				expectAPIHeaders(t, r)
			}
			heap.within(t, heapBudget)
			expect(t, h.get("/healthz", ""), 200, healthzResponse) // still serving
		})
	}
}

// TestSecurityHTTPChunkedBodiesAreCutAtTheLimit: a body without a declared
// length is read only up to the JSON limit; within it, it is accepted.
func TestSecurityHTTPChunkedBodiesAreCutAtTheLimit(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u := h.newUser("chunk@x.io")
		post := "POST " + feedbackPath(u) + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
			"Authorization: Bearer " + u.Token + "\r\nTransfer-Encoding: chunked\r\n"
		huge := io.MultiReader(strings.NewReader(`{"feedbackMessage":"`), &filler{left: floodBody})
		r := rawExchange(t, h, post, chunked(huge))
		expect(t, r, 413, errBody("payload_too_large", jsonTooLarge))
		expectAPIHeaders(t, r)

		// exactly the limit passes, one byte more does not (JSON may end in spaces)
		small := `{"feedbackMessage":"Sent in chunks, and welcome."}`
		exact := small + strings.Repeat(" ", jsonLimit-len(small))
		expect(t, rawExchange(t, h, post, chunked(strings.NewReader(exact+" "))), 413, errBody("payload_too_large", jsonTooLarge))
		expect(t, h.get(feedbackPath(u), u.Token), 200, feedbackList()) // nothing stored
		expect(t, rawExchange(t, h, post, chunked(strings.NewReader(small))), 200, okFeedback)
		expect(t, rawExchange(t, h, post, chunked(strings.NewReader(exact))), 200, okFeedback)
		list := h.get(feedbackPath(u), u.Token)
		expect(t, list, 200, `{"success":true,"feedback":["<any>","<any>"]}`)
	})
}

// TestSecurityHTTPCompressedBodiesAreRefused: Fiber would inflate a gzip body
// whole, past any limit; a JSON route refuses every Content-Encoding.
func TestSecurityHTTPCompressedBodiesAreRefused(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u := h.newUser("gzip@x.io")
		r := h.do(req{Method: "POST", Path: feedbackPath(u), Token: u.Token, Body: []byte("\x1f\x8b\x08\x00 not really gzip"),
			Headers: map[string]string{"Content-Encoding": "gzip"}})
		expect(t, r, 415, errBody("unsupported_media_type", "send the body uncompressed: no Content-Encoding"))
		expect(t, h.get(feedbackPath(u), u.Token), 200, feedbackList())
	})
}

// TestSecurityHTTPUploadsStreamWithinTheirLimits: only the image upload takes
// large bodies, read part by part: a normal upload works (a file larger than
// what is kept in memory included), an oversized one is 413 whether its
// length is declared or not, and neither is ever held in memory.
func TestSecurityHTTPUploadsStreamWithinTheirLimits(t *testing.T) {
	for _, p := range profiles(t) { // one at a time: the heap is the process's
		t.Run(p.name, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp) // where upload spools go: they must not stay
			h := newHarness(t, p, withEnv("TANDEM_IMAGES_RATE_LIMIT", "1000"))
			u := h.newUser("big@x.io")

			padded := append(pngFile(t), bytes.Repeat([]byte{0}, 600<<10)...) // past the in-memory share
			up := h.mustUpload(u, filePart("big.png", "image/png", padded), filePart("small.png", "image/png", pngFile(t)))
			expectFile(t, h.get("/files/"+up.Files[0].Data.Key, ""), "image/png", padded)

			post := "POST " + imagesPath(u) + " HTTP/1.1\r\nHost: x\r\nContent-Type: " + uploadType + "\r\n" +
				"Authorization: Bearer " + u.Token + "\r\n"
			cases := []struct {
				name string
				head string
				body io.Reader
				want string
			}{
				{"declared length over the body limit", post + fmt.Sprintf("Content-Length: %d\r\n", 60<<20),
					multipartStream("file", 60<<20), errBody("payload_too_large", uploadTooLarge)},
				{"chunked, one file over the file limit", post + "Transfer-Encoding: chunked\r\n",
					chunked(multipartStream("file", floodBody)), errBody("payload_too_large", imageTooLarge)},
				{"chunked, a field over the body limit", post + "Transfer-Encoding: chunked\r\n",
					chunked(multipartStream("", 60<<20)), errBody("payload_too_large", uploadTooLarge)},
			}
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					var r response
					heap := measureHeap(func() { r = rawExchange(t, h, tc.head, tc.body) })
					expect(t, r, 413, tc.want)
					heap.within(t, heapBudget)
				})
			}
			list := h.get(imagesPath(u), u.Token)
			expect(t, list, 200, `["<string>","<string>"]`) // the first upload's two, nothing more
			if left, _ := filepath.Glob(filepath.Join(tmp, "tandem-upload-*")); len(left) != 0 {
				t.Fatalf("upload spools left behind: %v", left)
			}
		})
	}
}

// TestSecurityHTTPUnreadBodiesNeverBecomeRequests: a body that no handler
// read (the request was refused first) must not be parsed as the next
// request of the connection: a small one is skipped, a large one closes it.
func TestSecurityHTTPUnreadBodiesNeverBecomeRequests(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		smuggled := "GET /api/smuggled HTTP/1.1\r\nHost: x\r\n\r\n"
		upload := "POST /api/users/user/someone/images HTTP/1.1\r\nHost: x\r\nContent-Type: " + uploadType + "\r\n"
		big := smuggled + strings.Repeat("x", 100<<10) // past what is skipped, and past fasthttp's first 8 KiB
		cases := []struct {
			name     string
			request  string
			thenOpen bool // the connection still serves
		}{
			{"declared, small", upload + fmt.Sprintf("Content-Length: %d\r\n\r\n", len(smuggled)) + smuggled, true},
			{"chunked, small", upload + "Transfer-Encoding: chunked\r\n\r\n" + chunkedString(smuggled), true},
			{"declared, large", upload + fmt.Sprintf("Content-Length: %d\r\n\r\n", len(big)) + big, false},
			{"declared, over the JSON limit", "POST /api/version-check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
				fmt.Sprintf("Content-Length: %d\r\n\r\n", jsonLimit+1) + big, false},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				conn := dial(t, h)
				br := bufio.NewReader(conn)
				if _, err := io.WriteString(conn, tc.request+"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
					t.Fatal(err)
				}
				first := readResponse(t, br)
				if first.Status != 401 && first.Status != 413 {
					t.Fatalf("first answer %d %s", first.Status, first.Body)
				}
				res, err := http.ReadResponse(br, nil)
				if !tc.thenOpen {
					if err == nil {
						b, _ := io.ReadAll(res.Body)
						t.Fatalf("the connection went on: %d %s", res.StatusCode, b)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(res.Body)
				res.Body.Close()
				expect(t, response{Status: res.StatusCode, Header: res.Header, Body: b}, 200, healthzResponse)
			})
		}

		// a finished upload, larger than what is skipped, leaves the connection serving
		u := h.newUser("keep@x.io")
		body, ct := multipartBody(t, filePart("big.png", "image/png", append(pngFile(t), make([]byte, 300<<10)...)))
		conn := dial(t, h)
		br := bufio.NewReader(conn)
		upload = "POST " + imagesPath(u) + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + u.Token + "\r\nContent-Type: " + ct +
			fmt.Sprintf("\r\nContent-Length: %d\r\n\r\n", len(body))
		if _, err := io.WriteString(conn, upload+string(body)+"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		expect(t, readResponse(t, br), 200, "")
		expect(t, readResponse(t, br), 200, healthzResponse)
	}, withEnv("TANDEM_IMAGES_RATE_LIMIT", "1000"))
}

// TestSecurityHTTPAPIAnswersAreNotCachedOrSniffed: every /api/ answer, error
// or not, and an unknown /api/ path too, carries the three headers.
func TestSecurityHTTPAPIAnswersAreNotCachedOrSniffed(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u := h.newUser("hdr@x.io")
		for _, r := range []response{
			h.get("/api/users/user/"+u.ID, u.Token),                  // 200
			h.get("/api/users/user/"+u.ID, ""),                       // 401
			h.get("/api/users/user/someone-else", u.Token),           // 403
			h.get("/api/no-such-route", ""),                          // 404
			h.get("/API/No-Such-Route", ""),                          // 404, routed case-insensitively
			h.post("/api/version-check", "", map[string]any{"x": 1}), // 400
			h.do(req{Method: "OPTIONS", Path: "/api/version-check", // CORS preflight
				Headers: map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "POST"}}),
		} {
			expectAPIHeaders(t, r)
		}
		if got := h.get("/healthz", "").Header.Get("Cache-Control"); got == "no-store" {
			t.Fatalf("a non-API route got the API's headers")
		}
	})
}

// TestSecurityHTTPRequestIDsAreKeptOnlyWhenSafe: a client's X-Request-Id goes
// into every log line and back out in a header, so only 1–64 of
// [A-Za-z0-9._-] is kept; anything else is replaced by a fresh id.
func TestSecurityHTTPRequestIDsAreKeptOnlyWhenSafe(t *testing.T) {
	parallel(t)
	made := regexp.MustCompile(`^[0-9a-f]{24}$`)
	eachProfile(t, func(t *testing.T, h *harness) {
		for _, good := range []string{"abc-123", "A.b_C-9", strings.Repeat("z", 64)} {
			r := h.do(req{Method: "GET", Path: "/api/no-such-route", Headers: map[string]string{"X-Request-Id": good}})
			if got := r.Header.Get("X-Request-Id"); got != good {
				t.Fatalf("%q: echoed %q", good, got)
			}
		}
		for _, bad := range []string{strings.Repeat("z", 65), "<script>alert(1)</script>", "abc%0d%0aX-Evil:1",
			"id;drop", "a/b", `"quoted"`, "abc def"} {
			r := h.do(req{Method: "GET", Path: "/api/no-such-route", Headers: map[string]string{"X-Request-Id": bad}})
			if got := r.Header.Get("X-Request-Id"); !made.MatchString(got) {
				t.Fatalf("%q: answered with id %q, want a fresh one", bad, got)
			}
		}
		// bytes a well-behaved client cannot send: control and high bytes, a line break
		for _, raw := range []string{"abc\x7fdef", "abc\x01def", "abc\xffdef", "abc\tdef"} {
			r := rawExchange(t, h, "GET /api/no-such-route HTTP/1.1\r\nHost: x\r\nX-Request-Id: "+raw+"\r\n", nil)
			if got := r.Header.Get("X-Request-Id"); !made.MatchString(got) {
				t.Fatalf("%q: answered with id %q, want a fresh one", raw, got)
			}
		}
		r := rawExchange(t, h, "GET /api/no-such-route HTTP/1.1\r\nHost: x\r\nX-Request-Id: abc\r\nX-Evil: 1\r\n", nil)
		if r.Header.Get("X-Evil") != "" || r.Header.Get("X-Request-Id") != "abc" {
			t.Fatalf("headers %v", r.Header)
		}
	})
}

// TestSecurityHTTPMetricsAreNotPublic: /metrics is served only on its own
// listener (TANDEM_METRICS_ADDR), which stops with the app; empty turns it off.
func TestSecurityHTTPMetricsAreNotPublic(t *testing.T) {
	parallel(t)
	// Distinct subtest names: a "#01" suffix would reach the SQLite path, where '#' ends the file name.
	t.Run("on", func(t *testing.T) { metricsOn(t) })
	t.Run("off", func(t *testing.T) { metricsOff(t) })
}

func metricsOn(t *testing.T) {
	eachMetricsProfile(t, "127.0.0.1:0", func(t *testing.T, h *harness, metrics *httpapi.MetricsServer) {
		expect(t, h.get("/metrics", ""), 404, errBody("not_found", "no such route"))
		r := scrape(t, metrics)
		expect(t, r, 200, "")
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") ||
			!strings.Contains(string(r.Body), "tandem_http_requests_total{") {
			t.Fatalf("not Prometheus text: %s\n%.300s", ct, r.Body)
		}
		if err := h.app.Stop(t.Context()); err != nil {
			t.Fatal(err)
		}
		if c, err := net.Dial("tcp", metrics.Addr()); err == nil {
			c.Close()
			t.Fatal("the metrics listener outlived the app")
		}
	})
}

func metricsOff(t *testing.T) {
	eachMetricsProfile(t, "", func(t *testing.T, h *harness, metrics *httpapi.MetricsServer) {
		if metrics.Addr() != "" {
			t.Fatalf("metrics listen on %s although TANDEM_METRICS_ADDR is empty", metrics.Addr())
		}
		expect(t, h.get("/metrics", ""), 404, errBody("not_found", "no such route"))
	})
}

// eachMetricsProfile runs fn on every profile with TANDEM_METRICS_ADDR=addr
// and the metrics listener at hand.
func eachMetricsProfile(t *testing.T, addr string, fn func(t *testing.T, h *harness, metrics *httpapi.MetricsServer)) {
	for _, p := range profiles(t) {
		t.Run(p.name, func(t *testing.T) {
			parallel(t)
			var metrics *httpapi.MetricsServer
			h := newHarness(t, p, withEnv("TANDEM_METRICS_ADDR", addr), withFx(fx.Populate(&metrics)))
			fn(t, h, metrics)
		})
	}
}

// scrape reads /metrics from the metrics listener.
func scrape(t *testing.T, metrics *httpapi.MetricsServer) response {
	t.Helper()
	res, err := http.Get("http://" + metrics.Addr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return response{Status: res.StatusCode, Header: res.Header, Body: b}
}

func expectAPIHeaders(t *testing.T, r response) {
	t.Helper()
	for name, want := range map[string]string{"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
		"Referrer-Policy": "no-referrer"} {
		if got := r.Header.Get(name); got != want {
			t.Fatalf("%d answer: %s is %q, want %q (headers %v)", r.Status, name, got, want, r.Header)
		}
	}
}

// heapUse is the process's heap around some work: what it allocated in all,
// and how much more it holds after.
type heapUse struct{ allocated, grown int64 }

func measureHeap(work func()) heapUse {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	work()
	runtime.ReadMemStats(&after)
	return heapUse{allocated: int64(after.TotalAlloc - before.TotalAlloc), grown: int64(after.HeapInuse) - int64(before.HeapInuse)}
}

func (u heapUse) within(t *testing.T, budget int64) {
	t.Helper()
	if u.allocated > budget || u.grown > budget {
		t.Fatalf("the heap grew by %d MiB (%d MiB allocated), budget %d MiB", u.grown>>20, u.allocated>>20, budget>>20)
	}
}

// filler is left bytes of 'a', made as they are read.
type filler struct{ left int64 }

func (f *filler) Read(p []byte) (int, error) {
	if f.left <= 0 {
		return 0, io.EOF
	}
	n := min(int64(len(p)), f.left)
	for i := range p[:n] {
		p[i] = 'a'
	}
	f.left -= n
	return int(n), nil
}

// multipartStream is an upload body with one part of size bytes, made as it
// is read: a PNG named file when name is "file", else a plain field.
func multipartStream(name string, size int64) io.Reader {
	disposition := `form-data; name="caption"`
	if name != "" {
		disposition = `form-data; name="` + name + `"; filename="x.png"` + "\r\nContent-Type: image/png"
	}
	head := "--" + uploadBoundary + "\r\nContent-Disposition: " + disposition + "\r\n\r\n\x89PNG\r\n\x1a\n"
	return io.MultiReader(strings.NewReader(head), &filler{left: size}, strings.NewReader("\r\n--"+uploadBoundary+"--\r\n"))
}

// chunked encodes body as HTTP/1.1 chunks, as it is read.
func chunked(body io.Reader) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		cw := httputil.NewChunkedWriter(pw)
		_, err := io.Copy(cw, body)
		if err == nil {
			err = cw.Close()
		}
		if err == nil {
			_, err = io.WriteString(pw, "\r\n")
		}
		pw.CloseWithError(err)
	}()
	return pr
}

func chunkedString(s string) string {
	b, _ := io.ReadAll(chunked(strings.NewReader(s)))
	return string(b)
}

func dial(t *testing.T, h *harness) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(h.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	_ = conn.SetDeadline(time.Now().Add(60 * time.Second)) // a hang fails instead of stalling the suite
	t.Cleanup(func() { conn.Close() })
	return conn
}

// rawExchange sends one request on a fresh connection: head (request line
// and headers, each ending in CRLF), then body, written while the answer is
// read, so a server that answers early and closes is seen as it is.
func rawExchange(t *testing.T, h *harness, head string, body io.Reader) response {
	t.Helper()
	conn := dial(t, h)
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		if _, err := io.WriteString(conn, head+"\r\n"); err != nil || body == nil {
			return
		}
		_, _ = io.Copy(conn, body) // the server may close before the end: that is the point
		if c, ok := body.(io.Closer); ok {
			c.Close()
		}
	}()
	r := readResponse(t, bufio.NewReader(conn))
	conn.Close()
	<-wrote
	return r
}

func readResponse(t *testing.T, br *bufio.Reader) response {
	t.Helper()
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return response{Status: res.StatusCode, Header: res.Header, Body: b}
}
