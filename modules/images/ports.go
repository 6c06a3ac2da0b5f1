package images

import (
	"context"
	"io"
	"strings"
	"time"

	"tandem/core"
)

//go:generate go run go.uber.org/mock/mockgen@v0.6.0 -typed -destination=mock_ports_test.go -package=images_test . Repository,Blobs,Presigner,Reporter

// Repository stores image records. Every method is one transaction. An
// image's URL is not stored: images read back have an empty URL (the
// service renders it from the key). A blob
// key belongs to at most one image (the storage enforces it), so the file of
// a deleted image can always be deleted with it.
type Repository interface {
	// Create stores the images of one upload (all of one user), all or
	// nothing, if room allows it with the user's stored bytes before them
	// (see StoredBytes; nil room: any number). It sums and inserts in one
	// transaction, so concurrent uploads never pass room: room's error
	// then, and nothing is written. core.KindConflict when an id or a key
	// is taken.
	Create(ctx context.Context, imgs []Image, room core.Room) error
	// StoredBytes is the sum of the Size of the user's images: the bytes of
	// their files. Deleting or relinking images gives bytes back by itself.
	StoredBytes(ctx context.Context, userID string) (int64, error)
	// Get returns the user's image; core.KindNotFound when there is none with
	// that id, or it is another user's.
	Get(ctx context.Context, userID, id string) (Image, error)
	// ByKey returns the image holding the blob key; core.KindNotFound when none.
	ByKey(ctx context.Context, key string) (Image, error)
	// Held returns which of keys an image holds, in one read (the sweep
	// checks the store's files a page at a time).
	Held(ctx context.Context, keys []string) (map[string]bool, error)
	// List returns up to n of the user's images newest first (CreatedAt, then
	// ID, descending), starting after the position when it is not nil; n <= 0
	// means all of them.
	List(ctx context.Context, userID string, after *Position, n int) ([]Image, error)
	// Group returns the user's images of the group in upload order (Seq); an
	// empty slice when there are none.
	Group(ctx context.Context, userID, groupID string) ([]Image, error)
	// Relink points each changed image at its change's key, all or nothing,
	// takes the size, dimensions and BlurHash of the image which held the
	// key, and sets its UpdatedAt to at. An image that held one of the keys and is not itself
	// changed is removed: its file now belongs to the changed image. It
	// returns the changed images (in the order of changes) and the keys no
	// image holds any more, whose files may be deleted. When groupID is not
	// empty every changed image must be in that group. core.KindNotFound when
	// a changed image is not the user's (or not in the group); core.KindInvalid
	// when a key is held by none of the user's images or appears twice.
	Relink(ctx context.Context, userID, groupID string, changes []Change, at time.Time) (changed []Image, freed []string, err error)
	// Delete removes the user's image and returns it; core.KindNotFound as Get.
	Delete(ctx context.Context, userID, id string) (Image, error)
	// DeleteGroup removes the user's images of the group and returns them in
	// upload order; core.KindNotFound when there are none.
	DeleteGroup(ctx context.Context, userID, groupID string) ([]Image, error)
	// DeleteByUser removes every image of the user; it is idempotent.
	DeleteByUser(ctx context.Context, userID string) error
}

// Limits tells how many bytes of files the user may keep: the "storage"
// limit of the user's premium state (premium.Service; a partner's shared
// premium counts).
type Limits interface {
	MaxStorage(ctx context.Context, userID string) (StorageLimit, error)
}

// StorageLimit is a user's storage limit: Bytes, NoLimit when none is
// configured, and Label, the limit as configured ("1GB") for messages.
type StorageLimit struct {
	Bytes int64
	Label string
}

// Blobs stores files by key (TANDEM_BLOBS: disk, S3-compatible or memory).
// Every method refuses a key that fails CheckBlobKey with core.KindInvalid.
type Blobs interface {
	// Put stores exactly size bytes read from r under key, replacing a file
	// of that key. Fewer bytes than size is an error and stores nothing; no
	// reader ever sees a partly written file.
	Put(ctx context.Context, key, contentType string, r io.Reader, size int64) error
	// Open returns the file's bytes (the caller closes them) and its size and
	// content type; core.KindNotFound when there is no such file.
	Open(ctx context.Context, key string) (io.ReadCloser, BlobInfo, error)
	// Delete removes the file; it is idempotent.
	Delete(ctx context.Context, key string) error
	// DeletePrefix removes every file whose key starts with prefix, which
	// ends with "/" (one owner's folder); it is idempotent.
	DeletePrefix(ctx context.Context, prefix string) error
	// Walk calls fn with the key and size of every stored file whose key
	// starts with prefix: "" for all of them, else a folder as DeletePrefix
	// takes it (core.KindInvalid otherwise). A file present for the whole
	// walk is seen exactly once, in no promised order; one written or
	// deleted meanwhile may or may not be, and one seen may be gone before
	// it is opened (Open: core.KindNotFound). Unfinished Puts are never
	// seen. fn may call the store's other methods; its first error ends the
	// walk and is returned as it is. Backups list the store with it.
	Walk(ctx context.Context, prefix string, fn func(key string, size int64) error) error
}

// BlobInfo describes a stored file.
type BlobInfo struct {
	Size        int64
	ContentType string
}

// Presigner is implemented by blob stores the client may fetch from directly
// (S3): GET /files/{key} then redirects to a URL valid for ttl.
type Presigner interface {
	PresignGet(ctx context.Context, key string, ttl time.Duration) (string, error)
}

// Reporter hears of files that could not be deleted after their images were
// (bootstrap logs them): the file is left behind and an operator should know.
// The owner's files are all removed anyway when the account is deleted.
type Reporter interface {
	OrphanedBlob(ctx context.Context, key string, err error)
}

// Processor turns an uploaded image into what is stored, and a stored one
// into its thumbnails. Both bound their work: at most Settings.MaxPixels
// declared pixels (checked from the header, before any decoding: 413
// payload_too_large) and a limited number of decodes at once.
type Processor interface {
	// Original decodes r (in the sniffed format), turns it upright by its
	// EXIF orientation and encodes it again without any metadata (EXIF,
	// GPS, XMP, comments): JPEG stays JPEG, PNG stays PNG, WEBP becomes JPEG,
	// or PNG when it has transparency. An image that does not decode is 415.
	Original(ctx context.Context, r io.Reader, format Format) (Processed, error)
	// Thumbnail scales a stored original to width pixels wide (never wider
	// than the original), in the original's format.
	Thumbnail(ctx context.Context, r io.Reader, format Format, width int) (Processed, error)
}

// Processed is an encoded image and what it shows.
type Processed struct {
	Data     []byte
	Format   Format
	Width    int
	Height   int
	BlurHash string // a placeholder to draw while the image loads; Original only
}

// MaxBlobKey bounds the length of a blob key.
const MaxBlobKey = 512

// CheckBlobKey is the key rule every Blobs implementation enforces, so a key
// maps safely to a path: "/"-separated segments of A-Z a-z 0-9 . _ -, none
// empty and none starting with "." (no "..", no hidden or temporary names),
// at most MaxBlobKey bytes. A prefix for DeletePrefix is such a key plus "/".
func CheckBlobKey(key string) error {
	if key == "" || len(key) > MaxBlobKey {
		return errBadBlobKey()
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg[0] == '.' {
			return errBadBlobKey()
		}
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
				return errBadBlobKey()
			}
		}
	}
	return nil
}

// CheckBlobPrefix checks a DeletePrefix argument.
func CheckBlobPrefix(prefix string) error {
	folder, ok := strings.CutSuffix(prefix, "/")
	if !ok {
		return errBadBlobKey()
	}
	return CheckBlobKey(folder)
}

func errBadBlobKey() error {
	return core.Invalid("invalid_request", "disk.notValidFileKey", "not a valid file key")
}
