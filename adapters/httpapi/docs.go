package httpapi

import (
	"bytes"
	"compress/gzip"
	"embed"
	"io"
	"io/fs"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"
	swaggerui "github.com/swaggest/swgui/v5/static"
)

// docsFS is the /docs page and its script; Swagger UI itself comes from the
// swgui module (swaggerui.FS, gzipped), so the page works with no internet.
//
//go:embed docs/index.html docs/docs.js
var docsFS embed.FS

// docsAsset is one file under /docs/: its type and where it is stored.
type docsAsset struct {
	contentType string
	fsys        fs.FS
	name        string // in fsys; a .gz name is stored compressed
}

var docsAssets = map[string]docsAsset{
	"swagger-ui-bundle.js": {"text/javascript; charset=utf-8", swaggerui.FS, "swagger-ui-bundle.js.gz"},
	"swagger-ui.css":       {"text/css; charset=utf-8", swaggerui.FS, "swagger-ui.css.gz"},
	"favicon-32x32.png":    {"image/png", swaggerui.FS, "favicon-32x32.png"},
	"favicon-16x16.png":    {"image/png", swaggerui.FS, "favicon-16x16.png"},
	"docs.js":              {"text/javascript; charset=utf-8", docsFS, "docs/docs.js"},
}

type docsHandler struct {
	document []byte // OpenAPI with this deployment's servers
	csp      string
}

// NewDocsHandler serves /openapi.json and /docs, the page people read it in.
func NewDocsHandler(cfg Config) (*docsHandler, error) {
	doc, err := Document(cfg.PublicURL)
	if err != nil {
		return nil, err
	}
	// A newline ends it, as encodeJSON ends every answer; doc is shared
	// (Document caches it), so the newline goes on a copy.
	doc = append(doc[:len(doc):len(doc)], '\n')
	return &docsHandler{document: doc, csp: docsCSP(cfg.PublicURL)}, nil
}

func (h *docsHandler) Register(r fiber.Router) {
	r.Get("/openapi.json", func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
		return c.Send(h.document)
	})
	r.Get("/docs", h.page)
	r.Get("/docs/:file", h.asset)
}

// docsCSP allows only the page's own files; "try it out" may call the public
// URL when the page is read through another host. Swagger UI sets style
// attributes, hence style-src 'unsafe-inline' (styles cannot run code).
func docsCSP(publicURL string) string {
	connect := "'self'"
	if u, err := url.Parse(publicURL); err == nil && u.Scheme != "" && u.Host != "" {
		connect += " " + u.Scheme + "://" + u.Host
	}
	return "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
		"font-src 'self'; connect-src " + connect + "; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}

func (h *docsHandler) page(c *fiber.Ctx) error {
	b, err := fs.ReadFile(docsFS, "docs/index.html")
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentSecurityPolicy, h.csp)
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	return c.Send(b)
}

// asset sends a file as stored: gzipped to a client that takes gzip (every
// browser), else inflated.
func (h *docsHandler) asset(c *fiber.Ctx) error {
	a, ok := docsAssets[c.Params("file")]
	if !ok {
		return fiber.ErrNotFound
	}
	b, err := fs.ReadFile(a.fsys, a.name)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, a.contentType)
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Set(fiber.HeaderCacheControl, "public, max-age=3600")
	if !strings.HasSuffix(a.name, ".gz") {
		return c.Send(b)
	}
	c.Vary(fiber.HeaderAcceptEncoding)
	if acceptsGzip(c.Get(fiber.HeaderAcceptEncoding)) {
		c.Set(fiber.HeaderContentEncoding, "gzip")
		return c.Send(b)
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return err
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		return err
	}
	return c.Send(plain)
}

// acceptsGzip reads Accept-Encoding loosely: gzip named and not refused (q=0).
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(name), "gzip") || strings.TrimSpace(name) == "*" {
			return strings.ReplaceAll(params, " ", "") != "q=0"
		}
	}
	return false
}
