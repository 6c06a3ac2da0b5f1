package memory_test

import (
	"testing"

	"tandem/adapters/memory"
	"tandem/adapters/storetest"
	"tandem/modules/accounts"
	"tandem/modules/events"
	"tandem/modules/images"
	"tandem/modules/notifications"
	"tandem/modules/partners"
	"tandem/modules/premium"
	"tandem/modules/relationship"
	"tandem/modules/throttle"
)

func TestThrottleRepository(t *testing.T) {
	storetest.ThrottleRepository(t, func(*testing.T) throttle.Repository { return memory.NewThrottleRepo() })
}

func TestAccountRepository(t *testing.T) {
	storetest.AccountRepository(t, func(*testing.T) accounts.Repository { return memory.NewAccountRepo() })
}

func TestPartnerRepository(t *testing.T) {
	storetest.PartnerRepository(t, func(*testing.T) partners.Repository { return memory.NewPartnerRepo() })
}

func TestPremiumRepository(t *testing.T) {
	storetest.PremiumRepository(t, func(*testing.T) premium.Repository { return memory.NewPremiumRepo() })
}

func TestRelationshipRepository(t *testing.T) {
	storetest.RelationshipRepository(t, func(*testing.T) relationship.Repository { return memory.NewRelationshipRepo() })
}

func TestNotificationRepository(t *testing.T) {
	storetest.NotificationRepository(t, func(*testing.T) notifications.Repository { return memory.NewNotificationRepo() })
}

func TestEventRepository(t *testing.T) {
	storetest.EventRepository(t, func(*testing.T) events.Repository { return memory.NewEventRepo() })
}

func TestImageRepository(t *testing.T) {
	storetest.ImageRepository(t, func(*testing.T) images.Repository { return memory.NewImageRepo() })
}
