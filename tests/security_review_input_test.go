package tests

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/fx"

	"tandem/adapters/httpapi"
)

// An attacker's review of issue 9's request bodies (review-input): each test
// is a hole found after the work was done, failing before its fix.

const (
	ambiguousLength = "malformed request: send one Content-Length, or Transfer-Encoding: chunked alone"
	partHeadTooLong = "each multipart part's headers must be at most 16384 bytes"
	tooManyFields   = "send at most 8 form fields besides the files"
)

// TestSecurityReviewASecondContentEncodingIsRefused: the JSON routes refused
// a Content-Encoding by its first header, while Fiber's c.Body() (the login
// and logout) inflates the body by the last one: after "identity" then
// "gzip", a 200 KB gzip bomb made the process allocate 1.4 GB, unsigned in.
func TestSecurityReviewASecondContentEncodingIsRefused(t *testing.T) {
	for _, p := range profiles(t) { // one at a time: the heap is the process's
		t.Run(p.name, func(t *testing.T) {
			h := newHarness(t, p)
			u := h.newUser("enc@x.io")
			login := gzipped(t, strings.NewReader(`{"email":"enc@x.io","password":"`+pw+`"}`))
			bomb := gzipBomb()
			for _, headers := range []string{
				"Content-Encoding: identity\r\nContent-Encoding: gzip\r\n",
				"Content-Encoding:\r\nContent-Encoding: gzip\r\n",
				"Content-Encoding: identity\r\nContent-Encoding: deflate, gzip\r\n",
			} {
				head := "POST /api/auth/login/email HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" + headers
				r := rawExchange(t, h, head+fmt.Sprintf("Content-Length: %d\r\n", len(login)), bytes.NewReader(login))
				expect(t, r, 415, errBody("unsupported_media_type", "send the body uncompressed: no Content-Encoding"))
				var flood response
				heap := measureHeap(func() {
					flood = rawExchange(t, h, head+fmt.Sprintf("Content-Length: %d\r\n", len(bomb)), bytes.NewReader(bomb))
				})
				expect(t, flood, 415, errBody("unsupported_media_type", "send the body uncompressed: no Content-Encoding"))
				heap.within(t, heapBudget)
			}
			expect(t, h.get(sessionsPath(u), u.Token), 200, `{"success":true,"sessions":["<any>"]}`) // no login happened
		})
	}
}

// TestSecurityReviewAnAnswerNobodyReadsCannotHoldTheConnection: a request
// whose body is not read gets its answer written after a hijack, for which
// fasthttp clears the connection's deadlines: a client that never reads held
// the connection and its goroutine forever. (A pipe makes "never reads"
// exact: every write waits for its reader, as on a TCP connection whose
// buffers the client filled.)
func TestSecurityReviewAnAnswerNobodyReadsCannotHoldTheConnection(t *testing.T) {
	parallel(t)
	for _, p := range profiles(t) {
		t.Run(p.name, func(t *testing.T) {
			parallel(t)
			var srv *httpapi.Server
			newHarness(t, p, withEnv("TANDEM_WRITE_TIMEOUT", "100ms"), withFx(fx.Populate(&srv)))
			client, server := net.Pipe()
			t.Cleanup(func() { client.Close() })
			srv.App.Handler() // builds the routes under the app's lock, which orders them before this goroutine's reads
			go func() { _ = srv.App.Server().ServeConn(server) }()
			_ = client.SetWriteDeadline(time.Now().Add(30 * time.Second)) // a hang fails instead of stalling
			head := "POST /api/version-check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
				fmt.Sprintf("Content-Length: %d\r\n\r\n", jsonLimit+1)
			_, err := io.WriteString(client, head)
			for chunk := make([]byte, 1<<10); err == nil; {
				_, err = client.Write(chunk) // the server stops reading to answer 413, which nobody reads
			}
			if !errors.Is(err, io.ErrClosedPipe) {
				t.Fatalf("the server held the connection: %v", err)
			}
		})
	}
}

// TestSecurityReviewUploadPartsAreBounded: the upload read each part's
// headers through mime/multipart, which allows 10 MiB of them per part, and
// skipped any number of fields: four parts of 9 MiB headers cost 271 MiB of
// allocations, a 40 MiB body of small fields 665 MiB and a second of CPU.
func TestSecurityReviewUploadPartsAreBounded(t *testing.T) {
	for _, p := range profiles(t) { // one at a time: the heap is the process's
		t.Run(p.name, func(t *testing.T) {
			h := newHarness(t, p, withEnv("TANDEM_IMAGES_RATE_LIMIT", "1000"))
			u := h.newUser("parts@x.io")
			post := "POST " + imagesPath(u) + " HTTP/1.1\r\nHost: x\r\nContent-Type: " + uploadType + "\r\n" +
				"Authorization: Bearer " + u.Token + "\r\nTransfer-Encoding: chunked\r\n"
			field := "--" + uploadBoundary + "\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\nhi\r\n"
			hugeHeads := func() io.Reader {
				var parts []io.Reader
				for range 4 {
					parts = append(parts, strings.NewReader("--"+uploadBoundary+"\r\nContent-Disposition: form-data; name=\"x\"\r\nX-Pad: "),
						&filler{left: 9 << 20}, strings.NewReader("\r\n\r\nv\r\n"))
				}
				return io.MultiReader(append(parts, strings.NewReader("--"+uploadBoundary+"--\r\n"))...)
			}
			cases := []struct {
				name string
				body io.Reader
				want string
			}{
				{"huge part headers", hugeHeads(), errBody("invalid_request", partHeadTooLong)},
				{"a flood of small fields", io.MultiReader(&repeated{s: field, left: 40 << 20},
					strings.NewReader("--"+uploadBoundary+"--\r\n")), errBody("invalid_request", tooManyFields)},
			}
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					var r response
					heap := measureHeap(func() { r = rawExchange(t, h, post, chunked(tc.body)) })
					expect(t, r, 400, tc.want)
					heap.within(t, heapBudget)
				})
			}
			// nine fields are one too many, eight pass beside a file
			fields := func(n int) []part {
				ps := []part{filePart("a.png", "image/png", pngFile(t))}
				for range n {
					ps = append(ps, part{name: "caption", data: []byte("hi")})
				}
				return ps
			}
			expect(t, h.upload(u, fields(9)...), 400, errBody("invalid_request", tooManyFields))
			expect(t, h.get(imagesPath(u), u.Token), 200, `[]`)
			h.mustUpload(u, fields(8)...)
			expect(t, h.get(imagesPath(u), u.Token), 200, `["<string>"]`)
		})
	}
}

// TestSecurityReviewSessionUserAgentsAreCleaned: the User-Agent of a login
// is stored and shown in the owner's session list, but skipped the text
// rule: a thief's session could disguise itself with a right-to-left
// override, and a byte that is not UTF-8 failed the login on MySQL (500).
func TestSecurityReviewSessionUserAgentsAreCleaned(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u := h.newUser("agent@x.io")
		body := `{"email":"agent@x.io","password":"` + pw + `"}`
		head := "POST /api/auth/login/email HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
			"User-Agent: Tandem\xff/1.0 \u202Eenohpi\x01\r\n" + fmt.Sprintf("Content-Length: %d\r\n", len(body))
		expect(t, rawExchange(t, h, head, strings.NewReader(body)), 200,
			`{"success":true,"userId":"`+u.ID+`","token":"<string>","message":"logged in"}`)
		sessions := h.get(sessionsPath(u), u.Token).JSON(t)["sessions"].([]any)
		if len(sessions) != 2 {
			t.Fatalf("%d sessions", len(sessions))
		}
		for _, s := range sessions {
			if ua := s.(map[string]any)["userAgent"]; ua != "Tandem/1.0 enohpi" && ua != "Go-http-client/1.1" {
				t.Fatalf("user agent stored as %q", ua)
			}
		}
	})
}

// TestSecurityReviewAmbiguousBodyLengthsAreRefused: fasthttp picks one
// reading of a request whose length two parsers can read differently and
// keeps the connection, so a proxy in front that reads it the other way
// forwards a second request hidden in the body (request smuggling). Such a
// request is refused (RFC 9112 section 6.3), stores nothing, and nothing
// after it on the connection is answered.
func TestSecurityReviewAmbiguousBodyLengthsAreRefused(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u := h.newUser("smuggle@x.io")
		body := `{"feedbackMessage":"Smuggled in."}`
		hidden := "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
		post := func(version string) string {
			return "POST " + feedbackPath(u) + " HTTP/" + version + "\r\nHost: x\r\nContent-Type: application/json\r\n" +
				"Authorization: Bearer " + u.Token + "\r\nConnection: keep-alive\r\n"
		}
		chunks := chunkedString(body)
		cases := []struct{ name, request string }{
			{"Content-Length, then Transfer-Encoding",
				post("1.1") + fmt.Sprintf("Content-Length: %d\r\n", len(chunks)+len(hidden)) + "Transfer-Encoding: chunked\r\n\r\n" + chunks},
			{"Transfer-Encoding, then Content-Length",
				post("1.1") + "Transfer-Encoding: chunked\r\n" + fmt.Sprintf("Content-Length: %d\r\n\r\n", len(chunks)+len(hidden)) + chunks},
			{"two different Content-Lengths",
				post("1.1") + fmt.Sprintf("Content-Length: %d\r\nContent-Length: %d\r\n\r\n", len(body)+len(hidden), len(body)) + body},
			{"Transfer-Encoding in HTTP/1.0", post("1.0") + "Transfer-Encoding: chunked\r\n\r\n" + chunks},
			{"chunked, then identity", post("1.1") + "Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n" + chunks},
			{"a coding before chunked", post("1.1") + "Transfer-Encoding: gzip, chunked\r\n\r\n" + chunks},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				conn := dial(t, h)
				br := bufio.NewReader(conn)
				if _, err := io.WriteString(conn, tc.request+hidden); err != nil {
					t.Fatal(err)
				}
				expect(t, readResponse(t, br), 400, errBody("invalid_request", ambiguousLength))
				if res, err := http.ReadResponse(br, nil); err == nil {
					t.Fatalf("the request after it was answered: %d", res.StatusCode)
				}
			})
		}
		expect(t, h.get(feedbackPath(u), u.Token), 200, feedbackList()) // nothing stored
		expect(t, rawExchange(t, h, post("1.1")+"Transfer-Encoding: chunked\r\n", strings.NewReader(chunks)), 200, okFeedback)
	})
}

func sessionsPath(u user) string { return "/api/users/user/" + u.ID + "/sessions" }

// gzipped is r compressed.
func gzipped(t *testing.T, r io.Reader) []byte {
	t.Helper()
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if _, err := io.Copy(zw, r); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// gzipBomb inflates to 200 MiB: 200 gzip members of 1 MiB each (a gzip
// reader reads them as one stream), made once. Compressing 200 MiB in one
// member took 25 s under the race detector, per profile.
func gzipBomb() []byte { return bytes.Repeat(gzipMember(), 200) }

var gzipMember = sync.OnceValue(func() []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	_, _ = io.Copy(zw, &filler{left: 1 << 20})
	_ = zw.Close()
	return b.Bytes()
})

// repeated is s again and again, left bytes in all, made as it is read.
type repeated struct {
	s    string
	off  int
	left int64
}

func (r *repeated) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), r.left)]
	for n := 0; n < len(p); {
		c := copy(p[n:], r.s[r.off:])
		r.off = (r.off + c) % len(r.s)
		n += c
	}
	r.left -= int64(len(p))
	return len(p), nil
}

// TestSecurityTestPushesAndDeviceRegistrationsAreRateLimited: whoever moves a
// known push token to their account cannot flood that phone with test pushes.
func TestSecurityTestPushesAndDeviceRegistrationsAreRateLimited(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u, other := h.newUser("a@x.io"), h.newUser("b@x.io")
		path := "/api/users/user/" + u.ID
		for i := range 20 {
			expect(t, h.post(path+"/devices", u.Token, map[string]any{"token": "ExponentPushToken[t" + itoa(int64(i)) + "]",
				"platform": "ios", "provider": "expo"}), 200, "")
			expect(t, h.post(path+"/send-test-notification", u.Token, map[string]any{"title": "t", "message": "m",
				"category": "partnerActivity"}), 200, "")
		}
		for _, r := range []response{
			h.post(path+"/send-test-notification", u.Token, map[string]any{"title": "t", "message": "m", "category": "partnerActivity"}),
			h.post(path+"/devices", u.Token, map[string]any{"token": "ExponentPushToken[late]", "platform": "ios", "provider": "expo"}),
		} {
			expect(t, r, 429, errBody("rate_limited", "too many requests, try again later"))
			if r.Header.Get("Retry-After") == "" {
				t.Fatal("no Retry-After")
			}
		}
		unread := h.get(path+"/notifications/unread", u.Token)
		expect(t, unread, 200, "")
		if n := unread.JSON(t)["unreadCount"]; n != float64(20) {
			t.Fatalf("unread %v: the refused test push was saved", unread.JSON(t))
		}
		// another account has its own budget
		expect(t, h.post("/api/users/user/"+other.ID+"/send-test-notification", other.Token,
			map[string]any{"title": "t", "message": "m", "category": "partnerActivity"}), 200, "")
	})
}
