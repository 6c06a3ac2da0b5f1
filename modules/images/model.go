// Package images holds users' uploaded images: the records (url, key, group),
// the rules of an upload (1 to 4 JPEG, PNG or WEBP files, each within the size
// limit, the format decided by the bytes) and the files themselves, kept in a
// blob store under unguessable keys that carry the owner's id.
package images

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"tandem/core"
)

// Image is one stored image. Each blob key belongs to exactly one image, so
// deleting the image deletes its file.
type Image struct {
	ID      string
	UserID  string
	GroupID string // shared by the images of one upload (a single image has its own)
	Seq     int    // position in its upload, from 0: a group reads in upload order
	Key     string // blob key, see NewKey
	// URL is {TANDEM_PUBLIC_URL}/files/{Key}. It is not stored (the key
	// is): the service sets it on every image it hands out, from the
	// deployment's TANDEM_PUBLIC_URL, so a restore under another address
	// serves every image from there. Repositories ignore it.
	URL       string
	Size      int64 // bytes of the file at Key: a user's sizes add up to their stored bytes
	Width     int   // pixels, upright; 0 for an image stored before they were recorded
	Height    int
	BlurHash  string // a placeholder to draw while the file loads; "" when not recorded
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Format is an accepted image format.
type Format struct {
	Ext         string // file extension in the key
	ContentType string
}

var (
	JPEG = Format{Ext: "jpg", ContentType: "image/jpeg"}
	PNG  = Format{Ext: "png", ContentType: "image/png"}
	WEBP = Format{Ext: "webp", ContentType: "image/webp"}

	formats = []Format{JPEG, PNG, WEBP}
)

// SniffLen is how many leading bytes Detect looks at.
const SniffLen = 12

var (
	magicJPEG = []byte{0xFF, 0xD8, 0xFF}
	magicPNG  = []byte{0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A}
)

// Detect decides the format from a file's first bytes (its magic number),
// never from a declared content type or file name: JPEG FF D8 FF, PNG
// 89 50 4E 47 0D 0A 1A 0A, WEBP "RIFF" <size> "WEBP".
func Detect(head []byte) (Format, bool) {
	switch {
	case bytes.HasPrefix(head, magicJPEG):
		return JPEG, true
	case bytes.HasPrefix(head, magicPNG):
		return PNG, true
	case len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		return WEBP, true
	}
	return Format{}, false
}

const (
	// MaxPerUpload is the spec's limit of images per upload request.
	MaxPerUpload = 4
	// MaxGroupUpdate bounds the items of one bulk group update.
	MaxGroupUpdate = 100
	// PresignTTL is how long a redirect to the blob store stays valid.
	PresignTTL = 15 * time.Minute

	keyPrefix      = "u/"
	keyRandomBytes = 16 // 128 bits: keys cannot be guessed
	maxOwnerLen    = 64
)

// File is one uploaded file: its size and a way to read it, more than once
// (the bytes are checked before anything is stored, then stored).
type File struct {
	Size int64
	Open func() (io.ReadCloser, error)
}

// Settings are the module's configuration (bound in bootstrap).
type Settings struct {
	PublicURL    string        // TANDEM_PUBLIC_URL, without a trailing slash
	MaxFileBytes int64         // TANDEM_UPLOAD_MAX_BYTES, per file
	SweepGrace   time.Duration // TANDEM_SWEEP_GRACE: how long a file may lack its row before the sweep removes it
}

// URLOf is the address handed out for key: TANDEM_PUBLIC_URL/files/key,
// rendered when read (a key's address moves with the deployment).
func (s Settings) URLOf(key string) string { return s.PublicURL + "/files/" + key }

// addressed returns imgs with their URL set (Image.URL is never stored).
func (s Settings) addressed(imgs ...Image) []Image {
	for i := range imgs {
		imgs[i].URL = s.URLOf(imgs[i].Key)
	}
	return imgs
}

// NewKey draws a fresh blob key u/<userID>/<32 hex>.<ext> from crypto/rand.
// It carries the owner, so a user's files share one prefix (purge, audits).
func NewKey(userID string, f Format) string {
	var b [keyRandomBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("images: crypto/rand failed: " + err.Error())
	}
	return keyPrefix + userID + "/" + hex.EncodeToString(b[:]) + "." + f.Ext
}

// OwnerPrefix is the blob-key prefix of every file of the user.
func OwnerPrefix(userID string) string { return keyPrefix + userID + "/" }

// KeyPattern is ParseKey's form as the API document states it (with
// maxOwnerLen and keyRandomBytes); a key must also be one of the caller's
// files, which no pattern says. URLPattern is the closest outer bound of
// the address an upload answered for a key: TANDEM_PUBLIC_URL/files/ and
// the key.
const (
	KeyPattern = `^u/[A-Za-z0-9_-]{1,64}/[0-9a-f]{32}\.(?:jpg|png|webp)$`
	URLPattern = `^[Hh][Tt][Tt][Pp][Ss]?://\S*/files/u/[A-Za-z0-9_-]{1,64}/[0-9a-f]{32}\.(?:jpg|png|webp)$`
)

// ParseKey checks that key has the form NewKey makes and returns its owner
// and format; anything else (path tricks included) is not a key.
func ParseKey(key string) (owner string, f Format, ok bool) {
	rest, found := strings.CutPrefix(key, keyPrefix)
	if !found {
		return "", Format{}, false
	}
	owner, name, found := strings.Cut(rest, "/")
	if !found || !validOwner(owner) {
		return "", Format{}, false
	}
	random, ext, found := strings.Cut(name, ".")
	if !found || len(random) != 2*keyRandomBytes || !isLowerHex(random) {
		return "", Format{}, false
	}
	for _, f := range formats {
		if f.Ext == ext {
			return owner, f, true
		}
	}
	return "", Format{}, false
}

// validOwner accepts user ids that are safe inside a key and a path segment.
func validOwner(id string) bool {
	if id == "" || len(id) > maxOwnerLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// ThumbWidths are the widths GET /files/{key}?w= serves: a fixed set, so a
// client cannot make the server render and store any number of sizes.
var ThumbWidths = []int{160, 320, 640, 1280}

// ThumbKey is where the thumbnail of width w of the file at key is stored:
// beside it, u/<owner>/<random>.w<w>.<ext>. ParseKey refuses it, so a
// thumbnail is never taken for an uploaded file.
func ThumbKey(key string, w int) string {
	base, ext, _ := cutExt(key)
	return base + ".w" + strconv.Itoa(w) + "." + ext
}

// ParseThumbKey returns the key of the file a thumbnail key belongs to.
func ParseThumbKey(key string) (original string, w int, ok bool) {
	base, ext, found := cutExt(key)
	if !found {
		return "", 0, false
	}
	i := strings.LastIndex(base, ".w")
	if i < 0 {
		return "", 0, false
	}
	w, err := strconv.Atoi(base[i+2:])
	if err != nil || !slices.Contains(ThumbWidths, w) || base[i+2:] != strconv.Itoa(w) {
		return "", 0, false
	}
	original = base[:i] + "." + ext
	if _, _, ok := ParseKey(original); !ok {
		return "", 0, false
	}
	return original, w, true
}

func cutExt(key string) (base, ext string, ok bool) {
	i := strings.LastIndexByte(key, '.')
	if i < 0 {
		return key, "", false
	}
	return key[:i], key[i+1:], true
}

// Position is a place in the newest-first list: the last image of a page.
type Position struct {
	CreatedAt time.Time
	ID        string
}

// String is the opaque cursor handed to clients: a core.TimeCursor.
func (p Position) String() string {
	return core.TimeCursor{At: core.Millis(p.CreatedAt), ID: p.ID}.String()
}

// ParsePosition reverses Position.String; anything else is a 400.
func ParsePosition(cursor string) (Position, error) {
	c, err := core.ParseTimeCursor(cursor)
	if err != nil {
		return Position{}, err
	}
	return Position{CreatedAt: core.FromMillis(c.At), ID: c.ID}, nil
}

// Change points image ID at the blob Key (held by another of the user's
// images, or already by this one).
type Change struct {
	ID  string
	Key string
}

// RelinkPlan is what a Repository.Relink changes: computed by PlanRelink
// from the stored images, applied by the repository in its transaction.
type RelinkPlan struct {
	Before  []Image  // the changed images as stored, in the order of changes
	Changed []Image  // the same images pointing at their new keys
	Removed []Image  // images whose file a changed image took over
	Freed   []string // keys no image holds afterwards: their files may go
}

// PlanRelink decides a Relink (see Repository) from the stored images, which
// byID and byKey look up; the repository holds them locked meanwhile.
func PlanRelink(userID, groupID string, changes []Change, at time.Time,
	byID func(id string) (Image, bool), byKey func(key string) (Image, bool)) (RelinkPlan, error) {
	var p RelinkPlan
	targets := make(map[string]bool, len(changes))
	newKeys := make(map[string]bool, len(changes))
	for _, c := range changes {
		if targets[c.ID] || newKeys[c.Key] {
			return RelinkPlan{}, core.Invalid("invalid_request", "images.imageKeyGivenTwice", "an image or a key is given twice")
		}
		img, ok := byID(c.ID)
		if !ok || img.UserID != userID || (groupID != "" && img.GroupID != groupID) {
			return RelinkPlan{}, core.NotFound("not_found", "images.noSuchImage", "no such image: %s", c.ID)
		}
		targets[c.ID], newKeys[c.Key] = true, true
		p.Before = append(p.Before, img)
	}
	for i, c := range changes {
		holder, ok := byKey(c.Key)
		if !ok || holder.UserID != userID {
			return RelinkPlan{}, core.Invalid("invalid_request", "images.noImageUserHoldsKey", "no image of the user holds key %s", c.Key)
		}
		if !targets[holder.ID] {
			p.Removed = append(p.Removed, holder)
		}
		next := p.Before[i]
		next.Key, next.URL, next.Size, next.UpdatedAt = c.Key, "", holder.Size, at
		next.Width, next.Height, next.BlurHash = holder.Width, holder.Height, holder.BlurHash
		p.Changed = append(p.Changed, next)
	}
	for _, img := range p.Before {
		if !newKeys[img.Key] {
			p.Freed = append(p.Freed, img.Key)
		}
	}
	return p, nil
}

// Update is a client's request to point an image at an uploaded file: the
// url and key the upload answered.
type Update struct {
	ID  string // empty on the single-image PUT (the id is in the path)
	URL string
	Key string
}

// Uploaded is the outcome of an upload: the new images, in the order sent.
type Uploaded struct {
	GroupID string
	Images  []Image
}

// Download is how GET /files/{key} answers: a redirect to the blob store
// (RedirectURL), or the bytes.
type Download struct {
	RedirectURL string
	Body        io.ReadCloser
	Size        int64
	ContentType string
	// ETag names the bytes: a key never gets other bytes, so its name is
	// enough (the width is part of a thumbnail's).
	ETag string
}

// The module's errors.

func errNoImage() error { return core.NotFound("not_found", "images.imageNotFound", "image not found") }
func errNoGroup() error {
	return core.NotFound("not_found", "images.imageGroupNotFound", "image group not found")
}
func errNoFile() error { return core.NotFound("not_found", "images.fileNotFound", "file not found") }
func errNotInGroup(id string) error {
	return core.NotFound("not_found", "images.imageNotGroup", "image %s is not in this group", id)
}
func errFileCount() error {
	return core.Invalid("invalid_request", "images.send14ImagesEach", "send 1 to 4 images, each in a part named file")
}
func errWidth() error {
	return core.Invalid("invalid_request", "images.wOne160320640", "w must be one of 160, 320, 640, 1280")
}
func errFormat() error {
	return core.Unsupported("unsupported_media_type", "images.imagesJPEGPNGWEBP", "images must be JPEG, PNG or WEBP")
}
func errKeyNotYours() error {
	return core.Forbidden("forbidden", "images.keyNotOneFiles", "key is not one of your files")
}
func errKeyUnknown() error {
	return core.Invalid("invalid_request", "images.keyNotOneUploadedImages", "key is not one of your uploaded images: upload the file first")
}
func errURLMismatch() error {
	return core.Invalid("invalid_request", "images.urlNotAddressKey", "url is not the address of key")
}
