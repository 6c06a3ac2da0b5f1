package s3_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"tandem/adapters/blob/s3"
	"tandem/adapters/blob/s3/s3test"
	"tandem/adapters/storetest"
	"tandem/core"
	"tandem/modules/images"
)

// newStore starts an in-process S3 server (gofakes3, memory backend) with
// one bucket and returns a store on it.
func newStore(t *testing.T) *s3.Store {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket("photos"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	s, err := s3.New(s3.Config{Endpoint: u.Host, Bucket: "photos", Region: "us-east-1",
		Creds: credentials.NewStaticV4("test-key", "test-secret", ""), MaxRetries: 1})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestBlobStore(t *testing.T) {
	storetest.BlobStore(t, func(t *testing.T) images.Blobs { return newStore(t) })
}

func TestPresignedGetServesTheBytes(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	data := append([]byte{0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A}, "pixels"...)
	if err := s.Put(ctx, "u/user-1/ab.png", "image/png", bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	signed, err := s.PresignGet(ctx, "u/user-1/ab.png", 15*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(signed)
	if err != nil || u.Query().Get("X-Amz-Expires") != "900" || u.Query().Get("X-Amz-Signature") == "" {
		t.Fatalf("not a presigned URL: %s", signed)
	}
	res, err := http.Get(signed)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	got, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || !bytes.Equal(got, data) || res.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("%d %q %q", res.StatusCode, res.Header.Get("Content-Type"), got)
	}
	if _, err := s.PresignGet(ctx, "../x", time.Minute); !core.IsKind(err, core.KindInvalid) {
		t.Fatalf("got %v", err)
	}
}

func TestNewNeedsKeys(t *testing.T) {
	for _, creds := range []*credentials.Credentials{nil, credentials.NewStaticV4("", "", "")} {
		if _, err := s3.New(s3.Config{Endpoint: "127.0.0.1:9000", Bucket: "b", Creds: creds}); err == nil {
			t.Fatal("accepted without keys")
		}
	}
}

func TestAnUnreachableStoreIsUnavailable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	addr := srv.Listener.Addr().String()
	srv.Close() // nothing listens there any more
	s, err := s3.New(s3.Config{Endpoint: addr, Bucket: "photos", Region: "us-east-1",
		Creds: credentials.NewStaticV4("k", "s", ""), MaxRetries: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _, err = s.Open(ctx, "u/user-1/ab.png")
	if !core.IsKind(err, core.KindUnavailable) {
		t.Fatalf("got %v", err)
	}
}

// realStore is a store on a new bucket of the real S3-compatible server
// (s3test; CI runs SeaweedFS).
func realStore(t *testing.T) *s3.Store {
	t.Helper()
	srv, ok := s3test.Bucket(t)
	if !ok {
		t.Skip("no real S3 server: set " + s3test.EnvURL + " (scripts/s3-server.sh start)")
	}
	s, err := s3.New(s3.Config{Endpoint: srv.Endpoint, Bucket: srv.Bucket, Region: "us-east-1",
		Creds: credentials.NewStaticV4(srv.Key, srv.Secret, ""), MaxRetries: 1})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The blob contract and presigned reads on a real server, not only the fake.
func TestBlobStoreOnARealServer(t *testing.T) {
	storetest.BlobStore(t, func(t *testing.T) images.Blobs { return realStore(t) })
}

func TestPresignedGetOnARealServer(t *testing.T) {
	s := realStore(t)
	ctx := context.Background()
	data := append([]byte{0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A}, "real pixels"...)
	if err := s.Put(ctx, "u/user-1/cd.png", "image/png", bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	signed, err := s.PresignGet(ctx, "u/user-1/cd.png", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.Get(signed)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	got, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || !bytes.Equal(got, data) {
		t.Fatalf("%d %q", res.StatusCode, got)
	}
	forged := strings.Replace(signed, "X-Amz-Signature=", "X-Amz-Signature=0", 1)
	if res, err := http.Get(forged); err != nil || res.StatusCode != http.StatusForbidden {
		t.Fatalf("a forged signature: %v %v", res.StatusCode, err)
	}
}
