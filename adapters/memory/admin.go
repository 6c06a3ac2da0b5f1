package memory

import (
	"cmp"
	"context"
	"sync"
	"time"

	"tandem/core"
	"tandem/modules/admin"
)

var (
	_ admin.AuditLog = (*AuditRepo)(nil)
	_ admin.Stats    = (*StatsRepo)(nil)
)

// AuditRepo keeps audit entries by id under one mutex.
type AuditRepo struct {
	mu      sync.RWMutex
	entries table[string, admin.Entry]
}

func NewAuditRepo() *AuditRepo {
	return &AuditRepo{entries: newTable[string, admin.Entry](conflict("memory.auditEntryExists", "audit entry exists"),
		notFound("memory.auditEntryNotFound", "audit entry not found"))}
}

func (r *AuditRepo) Append(_ context.Context, e admin.Entry) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.entries.insert(e.ID, e)
}

func (r *AuditRepo) Complete(_ context.Context, id string, outcome admin.Outcome, after string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, err := r.entries.update(id, func(e *admin.Entry) error {
		e.Outcome, e.After = outcome, after
		return nil
	})
	return err
}

// newerEntry orders like the SQL query: at, then id, descending.
func newerEntry(a, b admin.Entry) int {
	if c := b.At.Compare(a.At); c != 0 {
		return c
	}
	return cmp.Compare(b.ID, a.ID)
}

func (r *AuditRepo) List(_ context.Context, page core.Page) ([]admin.Entry, string, error) {
	var after *admin.Entry
	if page.Cursor != "" {
		c, err := core.ParseTimeCursor(page.Cursor)
		if err != nil {
			return nil, "", err
		}
		after = &admin.Entry{ID: c.ID, At: core.FromMillis(c.At)}
	}
	r.mu.RLock()
	out := r.entries.scan(func(e admin.Entry) bool { return after == nil || newerEntry(*after, e) < 0 }, newerEntry)
	r.mu.RUnlock()
	out, next := core.CutPage(out, page, func(e admin.Entry) string {
		return core.TimeCursor{At: core.Millis(e.At), ID: e.ID}.String()
	})
	return out, next, nil
}

// StatsRepo counts over the other memory repositories of the process.
type StatsRepo struct {
	accounts *AccountRepo
	partners *PartnerRepo
	premium  *PremiumRepo
	images   *ImageRepo
}

func NewStatsRepo(a *AccountRepo, p *PartnerRepo, pr *PremiumRepo, i *ImageRepo) *StatsRepo {
	return &StatsRepo{accounts: a, partners: p, premium: pr, images: i}
}

func (r *StatsRepo) Overview(_ context.Context, now, since time.Time) (admin.Overview, error) {
	var o admin.Overview
	r.accounts.mu.RLock()
	o.Users = r.accounts.accounts.len()
	r.accounts.mu.RUnlock()
	r.partners.mu.RLock()
	o.Couples = r.partners.partnerships.len()
	r.partners.mu.RUnlock()
	r.premium.mu.RLock()
	for _, s := range r.premium.subs.rows {
		if s.Grants(now) {
			o.ActivePremium++
		}
	}
	r.premium.mu.RUnlock()
	r.images.mu.RLock()
	for _, img := range r.images.images.rows {
		if !img.CreatedAt.Before(since) {
			o.UploadsToday++
		}
	}
	r.images.mu.RUnlock()
	return o, nil
}
