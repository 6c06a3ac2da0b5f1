package accounts_test

import (
	"context"
	"testing"

	"tandem/adapters/cache"
	"tandem/adapters/i18n"
	"tandem/adapters/memory"
	"tandem/adapters/sqlstore"
	"tandem/adapters/sqlstore/sqltest"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/accounts"
	"tandem/modules/throttle"
)

// BenchmarkAuthenticate measures token resolution on each SQL store: warm
// (bigcache hit) and cold (every call misses the cache and reads the store).
func BenchmarkAuthenticate(b *testing.B) {
	for _, d := range sqltest.Dialects(b) {
		db := sqltest.Open(b, d)
		warm, err := cache.New(cache.MaxTTL, 16)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { warm.Close() })
		for _, tc := range []struct {
			name  string
			cache accounts.SessionCache
		}{{"warm", warm}, {"cold", noCache{}}} {
			b.Run(string(d)+"/"+tc.name, func(b *testing.B) {
				svc, token := benchService(b, db, tc.cache)
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					if _, err := svc.Authenticate(ctx, token); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func benchService(b *testing.B, db *sqlstore.DB, c accounts.SessionCache) (*accounts.Service, string) {
	b.Helper()
	mail := &outbox{}
	repo := sqlstore.NewAccountRepo(db)
	sender := accounts.NewSender(repo, mail, &mailLog{}, core.SystemClock{}, core.NewUUIDv7(), accounts.SenderSettings{})
	svc, err := accounts.NewService(accounts.Deps{Repo: repo, Sender: sender, Hasher: plainHasher{},
		Cache: c, Limiter: throttle.NewLimiter(memory.NewThrottleRepo(), core.SystemClock{}), Bus: &coretest.Events{},
		Clock: core.SystemClock{}, IDs: core.NewUUIDv7(), Texts: i18n.MustLoad(nil)})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	email := core.NewUUIDv7().New() + "@bench.io"
	id, err := svc.SignUp(ctx, email, "password1", accounts.Client{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := sender.SendDue(ctx); err != nil {
		b.Fatal(err)
	}
	var code string
	for i := len(mail.mails) - 1; i >= 0 && code == ""; i-- {
		code = sixDigits.FindString(mail.mails[i].Text)
	}
	token, err := svc.VerifyEmail(ctx, id, code, accounts.Client{})
	if err != nil {
		b.Fatal(err)
	}
	return svc, token.Token
}

// noCache always misses, so every Authenticate reads the store.
type noCache struct{}

func (noCache) Get(string) (accounts.Session, bool) { return accounts.Session{}, false }
func (noCache) Put(string, accounts.Session)        {}
func (noCache) Forget(...string)                    {}
