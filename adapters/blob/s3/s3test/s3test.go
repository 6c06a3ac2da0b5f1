// Package s3test gives tests a fresh bucket on the real S3-compatible server
// named by TANDEM_TEST_S3_URL (http://KEY:SECRET@HOST:PORT; CI starts
// SeaweedFS with scripts/s3-server.sh). Under CI the variable must be set:
// a missing server is a failure, never a skip.
package s3test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// EnvURL names the server's URL.
const EnvURL = "TANDEM_TEST_S3_URL"

// Server is the real server and one new bucket of a test.
type Server struct {
	Endpoint string // host:port
	Bucket   string
	Key      string
	Secret   string
}

// Blobs is the TANDEM_BLOBS value of the bucket.
func (s Server) Blobs() string {
	return "s3://" + s.Bucket + "?endpoint=" + s.Endpoint + "&region=us-east-1&secure=false"
}

var buckets atomic.Int64

// Bucket returns a new empty bucket on the server, removed with its objects
// when the test ends; ok is false (the test is to be skipped) only outside
// CI when no server is configured.
func Bucket(t testing.TB) (Server, bool) {
	t.Helper()
	raw := os.Getenv(EnvURL)
	if raw == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s must be set under CI (scripts/s3-server.sh start prints it)", EnvURL)
		}
		return Server{}, false
	}
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		t.Fatalf("%s=%q is not http://KEY:SECRET@HOST:PORT", EnvURL, raw)
	}
	secret, _ := u.User.Password()
	s := Server{Endpoint: u.Host, Key: u.User.Username(), Secret: secret,
		Bucket: fmt.Sprintf("tandem-t-%d-%d-%d", os.Getpid(), time.Now().UnixNano()%1e6, buckets.Add(1))}
	c := s.Client(t)
	ctx := context.Background()
	if err := c.MakeBucket(ctx, s.Bucket, minio.MakeBucketOptions{Region: "us-east-1"}); err != nil {
		t.Fatalf("s3test: make bucket on %s: %v", s.Endpoint, err)
	}
	t.Cleanup(func() { s.remove(c) })
	return s, true
}

// Client is a client of the server with the test's keys.
func (s Server) Client(t testing.TB) *minio.Client {
	c, err := minio.New(s.Endpoint, &minio.Options{Creds: credentials.NewStaticV4(s.Key, s.Secret, ""),
		Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Keys lists the objects of the bucket.
func (s Server) Keys(t testing.TB) []string {
	var out []string
	for o := range s.Client(t).ListObjects(context.Background(), s.Bucket, minio.ListObjectsOptions{Recursive: true}) {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		out = append(out, o.Key)
	}
	return out
}

func (s Server) remove(c *minio.Client) {
	ctx := context.Background()
	for o := range c.ListObjects(ctx, s.Bucket, minio.ListObjectsOptions{Recursive: true}) {
		if o.Err == nil {
			_ = c.RemoveObject(ctx, s.Bucket, o.Key, minio.RemoveObjectOptions{})
		}
	}
	_ = c.RemoveBucket(ctx, s.Bucket)
}
