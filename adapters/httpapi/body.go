package httpapi

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"tandem/core"
)

// Request bodies are streamed (fiber.Config.StreamRequestBody): fasthttp reads
// at most 8 KiB of a body before the handlers run, and the rest only when
// asked. settleBody and limitBody decide how much is ever read:
//   - the image upload (multipart POST /api/users/user/{userId}/images) reads
//     its own stream part by part, within the upload limit (readUpload);
//   - every other route gets its body read here, whole but within the JSON
//     limit, before any handler: c.Body() and BindJSON see only that.

const (
	localBody      = "body"
	localAmbiguous = "ambiguousFraming" // set by settleBody, refused by limitBody
	localBadHeader = "malformedHeader"  // what is wrong with the header section; the same
)

// drainLimit is how much of a body nobody read is skipped to keep the
// connection; beyond it the connection is closed instead (as net/http does).
const drainLimit = 64 << 10

var errBodyTooLarge = errors.New("request body over the limit")

// cappedReader reads at most limit bytes of a body. The byte after the limit
// marks it over (and fails the read), so a body of exactly limit bytes passes.
// It remembers the end of the body: fasthttp's chunked stream must never be
// read past it, or it would read the next request of the connection.
type cappedReader struct {
	r    io.Reader
	read int64
	left int64 // limit+1 - read
	over bool
	done bool // the body's end was read
}

func newCappedReader(r io.Reader, limit int) *cappedReader {
	return &cappedReader{r: r, left: int64(limit) + 1}
}

func (b *cappedReader) Read(p []byte) (int, error) {
	switch {
	case b.done:
		return 0, io.EOF
	case b.over:
		return 0, errBodyTooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.read += int64(n)
	b.left -= int64(n)
	if b.left == 0 {
		b.over = true
		return n, errBodyTooLarge
	}
	if errors.Is(err, io.EOF) {
		b.done = true
	}
	return n, err
}

// settleBody runs first. It hands the request's body stream, capped at the
// route's limit, to the rest of the chain, and afterwards makes sure the
// connection never reads a body's unread rest as its next request: a small
// rest is skipped, a larger one closes the connection after this answer. A
// request of ambiguous length (limitBody refuses it) closes it always: what
// follows on the connection may be a request hidden in its body.
func settleBody(jsonLimit, uploadLimit int) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ambiguous := ambiguousFraming(c)
		if ambiguous {
			c.Locals(localAmbiguous, true)
		}
		if problem := headerProblem(c.Request().Header.RawHeaders()); problem != nil {
			c.Locals(localBadHeader, problem)
			ambiguous = true // parsers in front may have read these headers otherwise: close
		}
		stream := c.Request().BodyStream()
		if stream == nil { // no body, or one already in memory
			err := c.Next()
			if ambiguous {
				closeAfterAnswer(c.Context(), c.App().Config().WriteTimeout)
			}
			return err
		}
		limit := jsonLimit
		if isUpload(c) {
			limit = uploadLimit
		}
		body := newCappedReader(stream, limit)
		c.Locals(localBody, body)
		err := c.Next()
		if !ambiguous && !body.done && !body.over && unread(c, body) <= drainLimit {
			_, _ = io.CopyN(io.Discard, body, drainLimit)
		}
		if ambiguous || !body.done {
			closeAfterAnswer(c.Context(), c.App().Config().WriteTimeout)
		}
		return err
	}
}

// closeAfterAnswer closes a connection whose body was not read to its end,
// but not at once: closing with unread bytes makes the kernel reset the
// connection, and a client still sending its body may lose the answer (a 413
// the app never sees). So the answer goes out with Connection: close, then
// what still comes is read and dropped for a moment, as net/http does, and
// fasthttp closes the connection. (fasthttp skips a hijack when the answer
// itself says close, hence the answer is written here.) fasthttp clears the
// connection's deadlines before a hijack, so the write gets the server's
// write timeout again: a client that reads nothing cannot hold it forever.
func closeAfterAnswer(ctx *fasthttp.RequestCtx, writeTimeout time.Duration) {
	ctx.HijackSetNoResponse(true)
	ctx.Hijack(func(conn net.Conn) {
		if writeTimeout <= 0 {
			writeTimeout = lingerTime
		}
		_ = conn.SetWriteDeadline(time.Now().Add(writeTimeout))
		ctx.Response.Header.SetConnectionClose()
		w := bufio.NewWriter(conn)
		if ctx.Response.Write(w) != nil || w.Flush() != nil {
			return
		}
		_ = conn.SetReadDeadline(time.Now().Add(lingerTime))
		_, _ = io.CopyN(io.Discard, conn, lingerBytes)
	})
}

const (
	lingerTime  = time.Second
	lingerBytes = 64 << 20
)

// unread is what is left of a declared body; a chunked one is unknown (0),
// and a skip bounded by drainLimit finds out.
func unread(c *fiber.Ctx, body *cappedReader) int64 {
	if n := c.Request().Header.ContentLength(); n > 0 {
		return int64(n) - body.read
	}
	return 0
}

// limitBody refuses a body whose declared Content-Length exceeds the route's
// limit before reading any of it. On every route but the upload it then reads
// the body (declared or chunked) within the JSON limit, so no handler can
// read more.
func limitBody(jsonLimit, uploadLimit int) fiber.Handler {
	return func(c *fiber.Ctx) error {
		upload := isUpload(c)
		limit := jsonLimit
		if upload {
			limit = uploadLimit
		}
		if c.Locals(localAmbiguous) != nil {
			return core.Invalid("invalid_request", "httpapi.malformedRequestSendOneContent", "malformed request: send one Content-Length, or Transfer-Encoding: chunked alone")
		}
		if problem, ok := c.Locals(localBadHeader).(error); ok {
			return problem
		}
		if c.Request().Header.ContentLength() > limit {
			return tooLarge(limit)
		}
		if upload {
			return c.Next()
		}
		if hasBody(c) && encoded(c) { // decoding is unbounded: Fiber inflates c.Body() whole
			return core.Unsupported("unsupported_media_type", "httpapi.sendBodyUncompressedNoContent", "send the body uncompressed: no Content-Encoding")
		}
		if err := readBody(c, limit); err != nil {
			return err
		}
		return c.Next()
	}
}

// readBody replaces the body stream with the body itself, read within limit.
func readBody(c *fiber.Ctx, limit int) error {
	body, ok := c.Locals(localBody).(*cappedReader)
	if !ok {
		return nil // the body is already in memory, within the server's limit
	}
	b, err := io.ReadAll(body)
	switch {
	case body.over:
		return tooLarge(limit)
	case err != nil:
		return core.Invalid("invalid_request", "httpapi.malformedRequestBody", "malformed request body")
	}
	c.Request().SetBodyRaw(b)
	return nil
}

// requestBody is the body as a reader: the capped stream when it is still
// unread (the upload), else the body in memory.
func requestBody(c *fiber.Ctx) io.Reader {
	if body, ok := c.Locals(localBody).(*cappedReader); ok && !body.done {
		return body
	}
	return bytes.NewReader(c.Request().Body())
}

// bodyOver tells whether the body was cut at its limit.
func bodyOver(c *fiber.Ctx) bool {
	body, ok := c.Locals(localBody).(*cappedReader)
	return ok && body.over
}

func tooLarge(limit int) error {
	return core.TooLarge("payload_too_large", "httpapi.requestBodyLargerThanBytes", "request body larger than {1|%[1]d byte|%[1]d bytes}", limit)
}

// hasBody: a declared length above 0, or chunked (-1).
func hasBody(c *fiber.Ctx) bool {
	n := c.Request().Header.ContentLength()
	return n > 0 || n == -1
}

// encoded tells whether any Content-Encoding header names a coding: Fiber's
// c.Body() decodes by the last one, c.Get reads the first.
func encoded(c *fiber.Ctx) bool {
	for _, v := range c.Request().Header.PeekAll(fiber.HeaderContentEncoding) {
		if ce := strings.TrimSpace(string(v)); ce != "" && !strings.EqualFold(ce, "identity") {
			return true
		}
	}
	return false
}

// ambiguousFraming finds a request whose body length two HTTP parsers (a
// proxy in front and fasthttp) could read differently, which is how a second
// request is smuggled inside a body (RFC 9112 section 6.3): Content-Length
// twice, or beside Transfer-Encoding; Transfer-Encoding in HTTP/1.0, more
// than once, or other than chunked. fasthttp picks one reading silently;
// such a request is refused and its connection closed.
func ambiguousFraming(c *fiber.Ctx) bool {
	lengths, codings, chunked := 0, 0, false
	for _, line := range bytes.Split(c.Request().Header.RawHeaders(), []byte("\n")) {
		name, value, ok := bytes.Cut(line, []byte(":"))
		switch {
		case !ok:
		case bytes.EqualFold(name, []byte(fiber.HeaderContentLength)):
			lengths++
		case bytes.EqualFold(name, []byte(fiber.HeaderTransferEncoding)):
			codings++
			chunked = bytes.EqualFold(bytes.TrimSpace(value), []byte("chunked"))
		}
	}
	if codings == 0 {
		return lengths > 1
	}
	return lengths > 0 || codings > 1 || !chunked || !c.Request().Header.IsHTTP11()
}

// headerProblem finds what RFC 9110 and 9112 tell a server to refuse (or
// to rewrite, which would leave a proxy in front and this server reading
// different requests) in a header section, which fasthttp takes as it
// comes: a bare CR or a NUL in a value (RFC 9110 section 5.5; other control
// characters are only cleaned where a value is kept, as a session's
// User-Agent is), a folded line (obs-fold), a name that is not a token,
// and a second Host, Content-Type or Authorization, of which fasthttp keeps
// one while a proxy may have judged the request by the other, as the 400
// that names it; nil when there is none.
func headerProblem(raw []byte) error {
	counts := map[string]int{}
	for _, line := range bytes.Split(raw, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			return badHeaders("httpapi.headersFolded", "malformed request headers: a folded header line (obs-fold)")
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || len(name) == 0 {
			return badHeaders("httpapi.headersNoName", "malformed request headers: a header line without a name")
		}
		for _, b := range name {
			if !isTokenChar(b) {
				return badHeaders("httpapi.headersNameNotToken", "malformed request headers: a header name with a character outside the token set")
			}
		}
		if bytes.IndexByte(value, '\r') >= 0 {
			return badHeaders("httpapi.headersBareCR", "malformed request headers: a bare CR in a header value")
		}
		if bytes.IndexByte(value, 0) >= 0 {
			return badHeaders("httpapi.headersNUL", "malformed request headers: a NUL in a header value")
		}
		switch n := strings.ToLower(string(name)); n {
		case "host", "content-type", "authorization":
			if counts[n]++; counts[n] > 1 {
				return badHeaders("httpapi.headersRepeated", "malformed request headers: more than one %s header", string(name))
			}
		}
	}
	return nil
}

// badHeaders is headerProblem's 400, a whole sentence per problem.
func badHeaders(id, format string, args ...any) error {
	return core.Invalid("invalid_request", id, format, args...)
}

// isTokenChar is RFC 9110's tchar.
func isTokenChar(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' ||
		strings.IndexByte("!#$%&'*+-.^_`|~", b) >= 0
}

func isMultipart(c *fiber.Ctx) bool {
	return strings.HasPrefix(c.Get(fiber.HeaderContentType), fiber.MIMEMultipartForm)
}

// isUpload matches the image upload route the way Fiber routes (case-insensitively).
func isUpload(c *fiber.Ctx) bool {
	if c.Method() != fiber.MethodPost || !isMultipart(c) {
		return false
	}
	parts := strings.Split(strings.TrimSuffix(c.Path(), "/"), "/") // "", api, users, user, {id}, images
	return len(parts) == 6 && strings.EqualFold(parts[1], "api") && strings.EqualFold(parts[2], "users") &&
		strings.EqualFold(parts[3], "user") && strings.EqualFold(parts[5], "images")
}
