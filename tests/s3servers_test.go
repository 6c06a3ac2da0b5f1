package tests

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/minio/minio-go/v7"

	"tandem/adapters/blob/s3/s3test"
)

// s3Server is an S3-compatible server the S3 scenarios run on: always the
// in-process fake (gofakes3), and the real one CI starts (SeaweedFS, named
// by TANDEM_TEST_S3_URL). Both take the keys TestMain puts in the
// environment.
type s3Server struct {
	name string
	url  string                                      // http://host:port, the prefix of presigned URLs
	make func(t *testing.T) string                   // a new empty bucket, removed after the test
	has  func(t *testing.T, bucket, key string) bool // whether the bucket holds key
}

// blobs is the TANDEM_BLOBS value of bucket on s.
func (s s3Server) blobs(bucket string) string {
	return "s3://" + bucket + "?endpoint=" + strings.TrimPrefix(s.url, "http://") + "&region=us-east-1&secure=false"
}

var fakeBuckets atomic.Int64

func s3Servers(t *testing.T) []s3Server {
	backend := s3mem.New()
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	out := []s3Server{{name: "fake", url: srv.URL,
		make: func(t *testing.T) string {
			name := fmt.Sprintf("fake-%d", fakeBuckets.Add(1))
			if err := backend.CreateBucket(name); err != nil {
				t.Fatal(err)
			}
			return name
		},
		has: func(_ *testing.T, bucket, key string) bool {
			_, err := backend.HeadObject(bucket, key)
			return err == nil
		}}}
	probe, ok := s3test.Bucket(t)
	if !ok {
		return out
	}
	return append(out, s3Server{name: "seaweedfs", url: "http://" + probe.Endpoint,
		make: func(t *testing.T) string { s, _ := s3test.Bucket(t); return s.Bucket },
		has: func(t *testing.T, bucket, key string) bool {
			_, err := probe.Client(t).StatObject(context.Background(), bucket, key, minio.StatObjectOptions{})
			return err == nil
		}})
}
