// Package s3 keeps blobs in an S3-compatible bucket (AWS S3, MinIO, R2...)
// through minio-go (TANDEM_BLOBS=s3://BUCKET?endpoint=HOST:PORT...).
package s3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"tandem/core"
	"tandem/modules/images"
)

var (
	_ images.Blobs     = (*Store)(nil)
	_ images.Presigner = (*Store)(nil)
)

// Config names the bucket and how to reach it.
type Config struct {
	Endpoint string // host:port, no scheme
	Bucket   string
	Region   string // "" lets the client ask the server
	Secure   bool   // https
	// Creds signs every request; bootstrap passes credentials.NewEnvAWS()
	// (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY).
	Creds *credentials.Credentials
	// MaxRetries bounds the attempts of one request; 0 is the client's
	// default (10, with backoff).
	MaxRetries int
	// Transport, if set, carries every request (bootstrap's traced one).
	Transport http.RoundTripper
}

// Store is a bucket. Files are fetched by clients through presigned URLs
// (GET /files/{key} redirects), so the API process never streams them.
type Store struct {
	c      *minio.Client
	bucket string
}

// New builds the client; it needs keys, but makes no request.
func New(cfg Config) (*Store, error) {
	if cfg.Creds == nil {
		return nil, errors.New("s3 blobs: no credentials")
	}
	v, err := cfg.Creds.GetWithContext(nil)
	if err != nil {
		return nil, fmt.Errorf("s3 blobs: credentials: %w", err)
	}
	if v.AccessKeyID == "" || v.SecretAccessKey == "" {
		return nil, errors.New("s3 blobs: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set")
	}
	c, err := minio.New(cfg.Endpoint, &minio.Options{Creds: cfg.Creds, Secure: cfg.Secure, Region: cfg.Region,
		MaxRetries: cfg.MaxRetries, Transport: cfg.Transport})
	if err != nil {
		return nil, fmt.Errorf("s3 blobs: %w", err)
	}
	return &Store{c: c, bucket: cfg.Bucket}, nil
}

func (s *Store) Put(ctx context.Context, key, contentType string, r io.Reader, size int64) error {
	if err := images.CheckBlobKey(key); err != nil {
		return err
	}
	_, err := s.c.PutObject(ctx, s.bucket, key, r, size, minio.PutObjectOptions{ContentType: contentType})
	return mapErr(err)
}

func (s *Store) Open(ctx context.Context, key string) (io.ReadCloser, images.BlobInfo, error) {
	if err := images.CheckBlobKey(key); err != nil {
		return nil, images.BlobInfo{}, err
	}
	obj, err := s.c.GetObject(ctx, s.bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, images.BlobInfo{}, mapErr(err)
	}
	st, err := obj.Stat() // the first request: a missing key fails here
	if err != nil {
		obj.Close()
		return nil, images.BlobInfo{}, mapErr(err)
	}
	return obj, images.BlobInfo{Size: st.Size, ContentType: st.ContentType}, nil
}

func (s *Store) Delete(ctx context.Context, key string) error {
	if err := images.CheckBlobKey(key); err != nil {
		return err
	}
	return mapErr(s.c.RemoveObject(ctx, s.bucket, key, minio.RemoveObjectOptions{}))
}

// DeletePrefix lists the folder and removes what it finds, one by one: one
// owner's files are few, and each removal is idempotent if it is cut short.
func (s *Store) DeletePrefix(ctx context.Context, prefix string) error {
	if err := images.CheckBlobPrefix(prefix); err != nil {
		return err
	}
	for obj := range s.c.ListObjectsIter(ctx, s.bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if obj.Err != nil {
			return mapErr(obj.Err)
		}
		if err := s.c.RemoveObject(ctx, s.bucket, obj.Key, minio.RemoveObjectOptions{}); err != nil {
			return mapErr(err)
		}
	}
	return nil
}

// Walk lists the bucket under prefix (S3 listings are strongly consistent
// and in key order); objects whose names are no valid key (folder markers,
// files another tool put there) are passed over.
func (s *Store) Walk(ctx context.Context, prefix string, fn func(key string, size int64) error) error {
	if prefix != "" {
		if err := images.CheckBlobPrefix(prefix); err != nil {
			return err
		}
	}
	for obj := range s.c.ListObjectsIter(ctx, s.bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if obj.Err != nil {
			return mapErr(obj.Err)
		}
		if images.CheckBlobKey(obj.Key) != nil {
			continue
		}
		if err := fn(obj.Key, obj.Size); err != nil {
			return err
		}
	}
	return nil
}

// PresignGet signs a GET of key valid for ttl; it makes no request, so it
// does not check that the key exists (the service did, in its records).
func (s *Store) PresignGet(ctx context.Context, key string, ttl time.Duration) (string, error) {
	if err := images.CheckBlobKey(key); err != nil {
		return "", err
	}
	u, err := s.c.PresignedGetObject(ctx, s.bucket, key, ttl, nil)
	if err != nil {
		return "", mapErr(err)
	}
	return u.String(), nil
}

// mapErr turns S3 answers into core kinds: a missing key is NotFound, an
// unreachable store Unavailable, anything else internal.
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	switch minio.ToErrorResponse(err).Code {
	case "NoSuchKey":
		return core.NotFound("not_found", "s3.noSuchFile", "no such file").Wrap(err)
	case "SlowDown", "ServiceUnavailable", "InternalError":
		return core.Unavailable("unavailable", "s3.fileStoreUnavailable", "the file store is unavailable").Wrap(err)
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) {
		return core.Unavailable("unavailable", "s3.fileStoreUnavailable", "the file store is unavailable").Wrap(err)
	}
	return core.Internal(fmt.Errorf("s3 blobs: %w", err))
}
