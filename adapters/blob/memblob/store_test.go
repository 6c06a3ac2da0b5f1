package memblob_test

import (
	"testing"

	"tandem/adapters/blob/memblob"
	"tandem/adapters/storetest"
	"tandem/modules/images"
)

func TestBlobStore(t *testing.T) {
	storetest.BlobStore(t, func(*testing.T) images.Blobs { return memblob.New() })
}
