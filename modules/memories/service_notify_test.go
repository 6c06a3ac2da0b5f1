// This file holds the tests of telling the partner of a new memory: the
// current partner only, once and after storing; a failed notification or
// partner lookup; and the recording Notifier.

package memories_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"go.uber.org/mock/gomock"

	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/memories"
)

func TestCreateNotifiesTheCurrentPartnerOnly(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.create(t, "solo", "Alone", "2025-06-01")
	if got := f.notes.all(); len(got) != 0 {
		t.Fatalf("notified without a partner: %v", got)
	}
	f.partners.Pair("me", "partner")
	f.create(t, "me", "Our beach day", "2025-06-01")
	f.create(t, "partner", "Picnic", "2025-06-02")
	want := []note{ // that a memory was added, never its title: the memory is private
		{user: "partner", from: "me", kind: "memoryAdded"},
		{user: "me", from: "partner", kind: "memoryAdded"},
	}
	if got := f.notes.all(); !slices.Equal(got, want) {
		t.Fatalf("notes %+v", got)
	}
	f.partners.Unpair("me", "partner")
	f.create(t, "me", "After", "2025-06-03")
	if got := f.notes.all(); len(got) != 2 {
		t.Fatalf("a former partner was notified: %+v", got)
	}
	// a refused memory notifies nobody
	f.partners.Pair("me", "partner")
	if _, err := f.svc.Create(context.Background(), "me", memories.Draft{Date: "2025-06-01"}); err == nil {
		t.Fatal("accepted without a title")
	}
	if got := f.notes.all(); len(got) != 2 {
		t.Fatalf("notified of a refused memory: %+v", got)
	}
}

func TestAFailedNotificationDoesNotFailTheMemory(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.notes.fail = core.Unavailable("unavailable", "memories.pushDown", "push is down")
	f.partners.Pair("me", "partner")
	m, err := f.svc.Create(context.Background(), "me", memories.Draft{Title: "Kept", Date: "2025-06-01"})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.stored(t, "me"); len(got) != 1 || got[0].ID != m.ID {
		t.Fatalf("stored %+v", got)
	}
	if len(f.notes.all()) != 1 {
		t.Fatal("the notifier was not asked")
	}
}

// The interactions below are the point of their tests, so they use gomock.

func TestCreateNotifiesOnceAfterStoring(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ctrl := gomock.NewController(t)
	repo, partners, notifier := NewMockRepository(ctrl), NewMockPartners(ctrl), NewMockNotifier(ctrl)
	svc := memories.NewService(repo, partners, notifier, &maxMemories{}, settings, &coretest.Events{},
		limiter(coretest.NewClock(time.Time{})), coretest.NewClock(time.Time{}), &coretest.SeqIDs{})
	gomock.InOrder(
		partners.EXPECT().PartnerOf(gomock.Any(), "me").Return("partner", true, nil),
		repo.EXPECT().Create(gomock.Any(), gomock.Any(), gomock.Nil()).Return(nil),
		notifier.EXPECT().NotifyActivity(gomock.Any(), "partner", "me", "memoryAdded").
			Return(errors.New("push is down")).Times(1),
	)
	if _, err := svc.Create(ctx, "me", memories.Draft{Title: "Beach", Date: "2025-06-01"}); err != nil {
		t.Fatal(err)
	}
}

func TestAFailedPartnerLookupWritesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ctrl := gomock.NewController(t)
	repo, partners, notifier := NewMockRepository(ctrl), NewMockPartners(ctrl), NewMockNotifier(ctrl) // no writes, no notes expected
	svc := memories.NewService(repo, partners, notifier, &maxMemories{}, settings, &coretest.Events{},
		limiter(coretest.NewClock(time.Time{})), coretest.NewClock(time.Time{}), &coretest.SeqIDs{})
	broken := errors.New("database on fire")
	partners.EXPECT().PartnerOf(gomock.Any(), "me").Return("", false, core.Internal(broken))
	_, err := svc.Create(ctx, "me", memories.Draft{Title: "Beach", Date: "2025-06-01"})
	if !errors.Is(err, broken) || core.KindOf(err) != core.KindInternal {
		t.Fatalf("got %v", err)
	}
	// and an invalid draft is refused before the partner is even asked
	_, err = svc.Create(ctx, "me", memories.Draft{Title: "Beach"})
	coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
}

// notes is a recording Notifier; fail makes every call fail after recording.
type notes struct {
	mu   sync.Mutex
	got  []note
	fail error
}

type note struct{ user, from, kind string }

func (n *notes) NotifyActivity(_ context.Context, userID, fromUserID, kind string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.got = append(n.got, note{userID, fromUserID, kind})
	return n.fail
}

func (n *notes) all() []note {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.got)
}
