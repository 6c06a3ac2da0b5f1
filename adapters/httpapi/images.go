package httpapi

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"tandem/core"
	"tandem/modules/images"
)

var _ = documentRulesOf("images", images.Rules)

type imagesHandler struct {
	svc     *images.Service
	limiter core.Limiter
	cfg     Config
	idem    *Idempotency
}

func NewImagesHandler(svc *images.Service, limiter core.Limiter, cfg Config, idem *Idempotency) *imagesHandler {
	return &imagesHandler{svc: svc, limiter: limiter, cfg: cfg, idem: idem}
}

// filePart is the spec's multipart part name of an uploaded image.
const filePart = "file"

func (h *imagesHandler) Register(r fiber.Router) {
	g := r.Group("/api/users/user/:userId/images", requireSelf,
		limitPerUser(h.limiter, "images_user", h.cfg.ImageRateLimit))
	g.Post("/", h.idem.Guard, h.upload)
	g.Get("/", h.list)
	g.Get("/group/:groupId", h.group) // "/group/..." before "/:imageId", or Fiber routes it as an id
	g.Put("/group/:groupId", h.updateGroup)
	g.Delete("/group/:groupId", h.deleteGroup)
	g.Get("/:imageId", h.get)
	g.Put("/:imageId", h.update)
	g.Delete("/:imageId", h.remove)

	// Public: the unguessable key is the credential. The route admits only the
	// key's shape u/<owner>/<name>, so no path can reach outside it.
	r.Get("/files/u/:owner/:name", h.file)
}

// imageJSON is the spec's image record. Field names are the app's contract:
// do not rename.
type imageJSON struct {
	ID        string `json:"_id"`
	UserID    string `json:"userId"`
	URL       string `json:"url"`
	Key       string `json:"key"`
	GroupID   string `json:"groupId"`
	CreatedAt int64  `json:"createdAt"`
	// Additions: the upright size in pixels (0 for images stored before
	// they were recorded) and a BlurHash placeholder ("" then).
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	BlurHash string `json:"blurhash"`
}

func toImageJSON(img images.Image) imageJSON {
	return imageJSON{ID: img.ID, UserID: img.UserID, URL: img.URL, Key: img.Key, GroupID: img.GroupID,
		CreatedAt: core.Millis(img.CreatedAt), Width: img.Width, Height: img.Height, BlurHash: img.BlurHash}
}

// toImagesJSON renders the account export's images section (export.go).
var _ = exportSection(toImagesJSON)

func toImagesJSON(imgs []images.Image) []imageJSON {
	out := make([]imageJSON, len(imgs))
	for i, img := range imgs {
		out[i] = toImageJSON(img)
	}
	return out
}

// uploadReply is the upload answer: {success, files: [{data: {url, key}}], groupId}.
type uploadReply struct {
	Success bool             `json:"success"`
	Files   []uploadedFileJS `json:"files"`
	GroupID string           `json:"groupId"`
}

type uploadedFileJS struct {
	Data struct {
		URL string `json:"url"`
		Key string `json:"key"`
	} `json:"data"`
}

func (h *imagesHandler) upload(c *fiber.Ctx) error {
	if !isMultipart(c) {
		return core.Unsupported("unsupported_media_type", "httpapi.sendImagesMultipartFormData", "send the images as multipart/form-data, each in a part named file")
	}
	if c.Get(fiber.HeaderContentEncoding) != "" { // no unbounded decompression
		return core.Unsupported("unsupported_media_type", "httpapi.sendImagesUncompressedNoContent", "send the images uncompressed: no Content-Encoding")
	}
	files, err := readUpload(requestBody(c), string(c.Request().Header.MultipartFormBoundary()), h.cfg.UploadLimit)
	defer files.close()
	switch {
	case bodyOver(c):
		return tooLarge(h.cfg.UploadBodyLimit)
	case err != nil && errors.As(err, new(*core.Error)):
		return err
	case err != nil:
		return core.Invalid("invalid_request", "httpapi.malformedMultipartBody", "malformed multipart body")
	}
	up, err := h.svc.Upload(c.UserContext(), c.Params("userId"), files.files)
	if err != nil {
		return err
	}
	reply := uploadReply{Success: true, Files: make([]uploadedFileJS, len(up.Images)), GroupID: up.GroupID}
	for i, img := range up.Images {
		reply.Files[i].Data.URL, reply.Files[i].Data.Key = img.URL, img.Key
	}
	return c.JSON(reply)
}

// list answers the spec's bare array in which each element is a string
// holding the JSON-encoded record, newest first; pages via limit/cursor.
func (h *imagesHandler) list(c *fiber.Ctx) error {
	page, err := parsePage(c)
	if err != nil {
		return err
	}
	imgs, next, err := h.svc.List(c.UserContext(), c.Params("userId"), page)
	if err != nil {
		return err
	}
	out := make([]string, len(imgs))
	for i, img := range imgs {
		b, err := json.Marshal(toImageJSON(img))
		if err != nil {
			return core.Internal(err)
		}
		out[i] = string(b)
	}
	setNextCursor(c, next)
	return c.JSON(out)
}

func (h *imagesHandler) get(c *fiber.Ctx) error {
	img, err := h.svc.Get(c.UserContext(), c.Params("userId"), c.Params("imageId"))
	if err != nil {
		return err
	}
	return c.JSON(toImageJSON(img))
}

// relinkJSON is the body of PUT .../images/{imageId} and one item of the
// group update.
type relinkJSON struct {
	ID  string `json:"_id"`
	URL string `json:"url"`
	Key string `json:"key"`
}

func (h *imagesHandler) update(c *fiber.Ctx) error {
	var in relinkJSON
	if err := BindJSON(c, &in); err != nil {
		return err
	}
	img, err := h.svc.Update(c.UserContext(), c.Params("userId"), c.Params("imageId"),
		images.Update{URL: strings.TrimSpace(in.URL), Key: strings.TrimSpace(in.Key)})
	if err != nil {
		return err
	}
	return c.JSON(toImageJSON(img))
}

func (h *imagesHandler) remove(c *fiber.Ctx) error {
	img, err := h.svc.Delete(c.UserContext(), c.Params("userId"), c.Params("imageId"))
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"success": true, "deletedId": img.ID})
}

func (h *imagesHandler) group(c *fiber.Ctx) error {
	imgs, err := h.svc.Group(c.UserContext(), c.Params("userId"), c.Params("groupId"))
	if err != nil {
		return err
	}
	return c.JSON(toImagesJSON(imgs))
}

func (h *imagesHandler) updateGroup(c *fiber.Ctx) error {
	var in struct {
		Images *[]relinkJSON `json:"images"`
	}
	if err := BindJSON(c, &in); err != nil {
		return err
	}
	if in.Images == nil {
		return core.Invalid("invalid_request", "httpapi.imagesRequiredIdUrlKey", "images is required: [{_id, url, key}]")
	}
	us := make([]images.Update, len(*in.Images))
	for i, x := range *in.Images {
		us[i] = images.Update{ID: strings.TrimSpace(x.ID), URL: strings.TrimSpace(x.URL), Key: strings.TrimSpace(x.Key)}
	}
	imgs, err := h.svc.UpdateGroup(c.UserContext(), c.Params("userId"), c.Params("groupId"), us)
	if err != nil {
		return err
	}
	return c.JSON(toImagesJSON(imgs))
}

func (h *imagesHandler) deleteGroup(c *fiber.Ctx) error {
	imgs, err := h.svc.DeleteGroup(c.UserContext(), c.Params("userId"), c.Params("groupId"))
	if err != nil {
		return err
	}
	ids := make([]string, len(imgs))
	for i, img := range imgs {
		ids[i] = img.ID
	}
	return c.JSON(fiber.Map{"success": true, "groupId": c.Params("groupId"), "deletedIds": ids})
}

// fileCacheControl keeps personal photos out of shared caches (private) and
// lets a device keep its copy a day, then ask again with its ETag: a photo
// deleted meanwhile is then gone from the partner's phone too.
const fileCacheControl = "private, max-age=86400"

// file serves GET /files/{key}[?w=N]: a redirect to a short-lived presigned
// URL (S3), or the bytes, with an ETag (a key never gets other bytes).
func (h *imagesHandler) file(c *fiber.Ctx) error {
	w, err := thumbWidth(c.Query("w"))
	if err != nil {
		return err
	}
	d, err := h.svc.File(c.UserContext(), "u/"+c.Params("owner")+"/"+c.Params("name"), w)
	if err != nil {
		return err
	}
	if d.RedirectURL != "" {
		// Cached for well under the URL's lifetime; the stable URL stays the one to keep.
		c.Set(fiber.HeaderCacheControl, "private, max-age=300")
		return c.Redirect(d.RedirectURL, fiber.StatusFound)
	}
	c.Set(fiber.HeaderCacheControl, fileCacheControl)
	c.Set(fiber.HeaderETag, d.ETag)
	if etagMatches(c.Get(fiber.HeaderIfNoneMatch), d.ETag) {
		d.Body.Close()
		return c.SendStatus(fiber.StatusNotModified)
	}
	c.Set(fiber.HeaderContentType, d.ContentType)
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	return c.SendStream(d.Body, int(d.Size))
}

// thumbWidth reads ?w=: absent is 0 (the file itself); anything but plain
// digits is 400, and the service refuses a width outside its set.
func thumbWidth(q string) (int, error) {
	if q == "" {
		return 0, nil
	}
	w, err := strconv.Atoi(q)
	if err != nil || w <= 0 || strconv.Itoa(w) != q {
		return 0, core.Invalid("invalid_request", "images.wOne160320640", "w must be one of 160, 320, 640, 1280")
	}
	return w, nil
}

// etagMatches applies If-None-Match (RFC 9110 13.1.2): "*" or any listed
// tag names the current representation, compared weakly (W/ ignored on
// both sides), as a GET's conditional does.
func etagMatches(header, etag string) bool {
	etag = strings.TrimPrefix(etag, "W/")
	for _, tag := range strings.Split(header, ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == "*" || tag == etag {
			return true
		}
	}
	return false
}
