package bootstrap

import (
	"context"
	"fmt"
	"net/http"

	"github.com/minio/minio-go/v7/pkg/credentials"
	"go.uber.org/fx"
	"go.uber.org/zap"

	"tandem/adapters/blob/disk"
	"tandem/adapters/blob/memblob"
	s3blob "tandem/adapters/blob/s3"
	"tandem/adapters/cache"
	"tandem/adapters/httpapi"
	"tandem/adapters/imaging"
	"tandem/adapters/mail/logmail"
	"tandem/adapters/mail/memmail"
	"tandem/adapters/mail/smtp"
	"tandem/adapters/memory"
	"tandem/adapters/password"
	"tandem/adapters/sqlstore"
	"tandem/adapters/telemetry"
	"tandem/modules/accounts"
	"tandem/modules/images"
)

// storage binds every repository port for the TANDEM_DB kind.
func storage(db DBConfig) fx.Option {
	switch db.Kind {
	case DBMemory:
		return fx.Options(memory.Module,
			fx.Provide(func(r memory.Ready) httpapi.Pinger { return r }, func(r memory.Ready) httpapi.Breaker { return r }))
	case DBSQLite, DBMySQL:
		return fx.Options(
			fx.Provide(func(t *telemetry.Tracing) sqlstore.Config {
				c := sqlstore.Config{Dialect: sqlDialect(db.Kind), DSN: db.DSN, Pool: db.Pool}
				if t.On() {
					c.Tracing = t.Provider()
				}
				return c
			}),
			fx.Invoke(sqlPoolSeries),
			sqlstore.Module,
			fx.Provide(func(d *sqlstore.DB) httpapi.Pinger { return d }, func(b *sqlstore.Breaker) httpapi.Breaker { return b },
				func(d *sqlstore.DB) httpapi.HomePrefetch { return sqlstore.NewHomeRepo(d) }))
	}
	return fx.Error(fmt.Errorf("TANDEM_DB: unknown kind %q", db.Kind))
}

func sqlDialect(k DBKind) sqlstore.Dialect {
	if k == DBMySQL {
		return sqlstore.MySQL
	}
	return sqlstore.SQLite
}

// mailer binds accounts.Mailer for TANDEM_MAIL, and what the Sender needs
// besides (mailSending).
func mailer(cfg Config) fx.Option {
	return fx.Options(mailAdapter(cfg), mailSending(cfg))
}

func mailAdapter(cfg Config) fx.Option {
	switch cfg.Mail.Kind {
	case "":
		return fx.Provide(func() accounts.Mailer { return noMail{} })
	case "log":
		return fx.Provide(func(log *zap.Logger) accounts.Mailer { return logmail.New(log, cfg.MailFrom) })
	case "memory":
		// Reads of the recording outbox wait for the queued mail to arrive.
		return fx.Provide(func(q accounts.Outbox) *memmail.Outbox {
			o := memmail.New()
			o.SetBacklog(q)
			return o
		}, func(o *memmail.Outbox) accounts.Mailer { return o })
	case "smtp":
		return fx.Provide(func(t *telemetry.Tracing) (accounts.Mailer, error) {
			c := smtp.Config{Addr: cfg.Mail.Host, Username: cfg.Mail.Username, Password: cfg.Mail.Password, From: cfg.MailFrom,
				Timeout: cfg.MailTimeout}
			if err := c.Validate(); err != nil {
				return nil, fmt.Errorf("TANDEM_MAIL / TANDEM_MAIL_FROM: %w", err)
			}
			return traceMailer(smtp.New(c), t), nil
		})
	}
	return fx.Error(fmt.Errorf("TANDEM_MAIL: unknown kind %q", cfg.Mail.Kind))
}

// security binds the password hasher and the session read cache.
func security(cfg Config) fx.Option {
	return fx.Provide(
		func() accounts.PasswordHasher {
			return password.NewBounded(cfg.HashParams, password.Bound{Slots: cfg.HashSlots})
		},
		func(lc fx.Lifecycle) (localSessions, error) {
			c, err := cache.New(cfg.TokenCacheTTL, 16) // 16 MB: ~100k sessions
			if err == nil {
				lc.Append(fx.StopHook(c.Close))
			}
			return localSessions{c}, err
		},
		sessionCache,
		func() accounts.Admins { return accounts.Admins(cfg.AdminEmails) },
		func(s *accounts.Service) httpapi.Authenticator { return s },
	)
}

// blobs binds images.Blobs for TANDEM_BLOBS, the Reporter that logs the
// files a failed deletion leaves behind, and the image Processor
// (TANDEM_IMAGE_MAX_PIXELS, TANDEM_IMAGE_DECODES, TANDEM_IMAGE_DECODE_PIXELS).
func blobs(b BlobsConfig) fx.Option {
	report := fx.Provide(func(log *zap.Logger) images.Reporter { return orphanLog{log} },
		func(c Config) images.Processor {
			return imaging.New(imaging.Config{MaxPixels: int64(c.ImageMaxPixels), Concurrency: c.ImageDecodes,
				DecodePixels: int64(c.ImageDecodePixels)})
		})
	if b.Kind == "memory" {
		return fx.Options(report, fx.Provide(memblob.New, func(s *memblob.Store) images.Blobs { return s }))
	}
	return fx.Options(report, fx.Provide(func(t *telemetry.Tracing) (images.Blobs, error) {
		return openBlobs(b, t.Transport(nil, "s3"))
	}))
}

// openBlobs opens the file or S3 store of TANDEM_BLOBS (the commands that
// work on a deployment's store use it too; a memory store is one process's).
func openBlobs(b BlobsConfig, transport ...http.RoundTripper) (images.Blobs, error) {
	switch b.Kind {
	case "file":
		s, err := disk.New(b.Dir)
		if err != nil {
			return nil, fmt.Errorf("TANDEM_BLOBS: %w", err)
		}
		return s, nil
	case "s3":
		cfg := s3blob.Config{Endpoint: b.Endpoint, Bucket: b.Bucket, Region: b.Region,
			Secure: b.Secure, Creds: credentials.NewEnvAWS()}
		if len(transport) > 0 {
			cfg.Transport = transport[0]
		}
		s, err := s3blob.New(cfg)
		if err != nil {
			return nil, fmt.Errorf("TANDEM_BLOBS: %w", err)
		}
		return s, nil
	}
	return nil, fmt.Errorf("TANDEM_BLOBS: unknown kind %q", b.Kind)
}

// orphanLog logs a file whose image is gone but which could not be deleted.
type orphanLog struct{ log *zap.Logger }

func (o orphanLog) OrphanedBlob(_ context.Context, key string, err error) {
	o.log.Warn("file left behind: its image is deleted but the file could not be", zap.String("key", key), zap.Error(err))
}
