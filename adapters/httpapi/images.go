package httpapi

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/gofiber/fiber/v2"

	"tandem/core"
	"tandem/modules/images"
)

type imagesHandler struct {
	svc     *images.Service
	limiter core.Limiter
	cfg     Config
}

func NewImagesHandler(svc *images.Service, limiter core.Limiter, cfg Config) *imagesHandler {
	return &imagesHandler{svc: svc, limiter: limiter, cfg: cfg}
}

// filePart is the spec's multipart part name of an uploaded image.
const filePart = "file"

func (h *imagesHandler) Register(r fiber.Router) {
	g := r.Group("/api/users/user/:userId/images", requireSelf,
		limitPerUser(h.limiter, "images_user", h.cfg.ImageRateLimit))
	g.Post("/", h.upload)
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
}

func toImageJSON(img images.Image) imageJSON {
	return imageJSON{ID: img.ID, UserID: img.UserID, URL: img.URL, Key: img.Key, GroupID: img.GroupID,
		CreatedAt: core.Millis(img.CreatedAt)}
}

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
		return core.Unsupported("unsupported_media_type", "send the images as multipart/form-data, each in a part named file")
	}
	if c.Get(fiber.HeaderContentEncoding) != "" { // no unbounded decompression
		return core.Unsupported("unsupported_media_type", "send the images uncompressed: no Content-Encoding")
	}
	files, err := readUpload(requestBody(c), string(c.Request().Header.MultipartFormBoundary()), h.cfg.UploadLimit)
	defer files.close()
	switch {
	case bodyOver(c):
		return tooLarge(h.cfg.UploadBodyLimit)
	case err != nil && errors.As(err, new(*core.Error)):
		return err
	case err != nil:
		return core.Invalid("invalid_request", "malformed multipart body")
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
		return core.Invalid("invalid_request", "images is required: [{_id, url, key}]")
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

// file serves GET /files/{key}: a redirect to a short-lived presigned URL
// (S3), or the bytes, immutable (a key never gets other bytes).
func (h *imagesHandler) file(c *fiber.Ctx) error {
	d, err := h.svc.File(c.UserContext(), "u/"+c.Params("owner")+"/"+c.Params("name"))
	if err != nil {
		return err
	}
	if d.RedirectURL != "" {
		// Cached for well under the URL's lifetime; the stable URL stays the one to keep.
		c.Set(fiber.HeaderCacheControl, "private, max-age=300")
		return c.Redirect(d.RedirectURL, fiber.StatusFound)
	}
	c.Set(fiber.HeaderContentType, d.ContentType)
	c.Set(fiber.HeaderCacheControl, "public, max-age=31536000, immutable")
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	return c.SendStream(d.Body, int(d.Size))
}
