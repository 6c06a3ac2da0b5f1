package play

import "strconv"

// The Google Play Developer API's shapes, named as in its reference so that
// playtest and the tests can speak the same JSON. Times stay RFC 3339 text
// as on the wire; Verify parses them.

// SubscriptionPurchaseV2 is purchases.subscriptionsv2.get's answer.
type SubscriptionPurchaseV2 struct {
	Kind                       string                         `json:"kind,omitempty"`
	RegionCode                 string                         `json:"regionCode,omitempty"`
	StartTime                  string                         `json:"startTime,omitempty"`
	SubscriptionState          string                         `json:"subscriptionState,omitempty"`
	LatestOrderID              string                         `json:"latestOrderId,omitempty"`
	LinkedPurchaseToken        string                         `json:"linkedPurchaseToken,omitempty"`
	AcknowledgementState       string                         `json:"acknowledgementState,omitempty"`
	LineItems                  []SubscriptionPurchaseLineItem `json:"lineItems,omitempty"`
	TestPurchase               *TestPurchase                  `json:"testPurchase,omitempty"`
	ExternalAccountIdentifiers *ExternalAccountIdentifiers    `json:"externalAccountIdentifiers,omitempty"`
}

// SubscriptionPurchaseLineItem is one product of a subscription purchase.
type SubscriptionPurchaseLineItem struct {
	ProductID        string            `json:"productId"`
	ExpiryTime       string            `json:"expiryTime,omitempty"`
	AutoRenewingPlan *AutoRenewingPlan `json:"autoRenewingPlan,omitempty"`
}

// AutoRenewingPlan is set for an auto-renewing line item.
type AutoRenewingPlan struct {
	AutoRenewEnabled bool `json:"autoRenewEnabled"`
}

// TestPurchase is present (empty) on a license tester's purchase.
type TestPurchase struct{}

// ExternalAccountIdentifiers are the ids the app attached at purchase time.
type ExternalAccountIdentifiers struct {
	ExternalAccountID           string `json:"externalAccountId,omitempty"`
	ObfuscatedExternalAccountID string `json:"obfuscatedExternalAccountId,omitempty"`
	ObfuscatedExternalProfileID string `json:"obfuscatedExternalProfileId,omitempty"`
}

// SubscriptionPurchaseV2.SubscriptionState values.
const (
	SubscriptionStateUnspecified             = "SUBSCRIPTION_STATE_UNSPECIFIED"
	SubscriptionStatePending                 = "SUBSCRIPTION_STATE_PENDING"
	SubscriptionStateActive                  = "SUBSCRIPTION_STATE_ACTIVE"
	SubscriptionStatePaused                  = "SUBSCRIPTION_STATE_PAUSED"
	SubscriptionStateInGracePeriod           = "SUBSCRIPTION_STATE_IN_GRACE_PERIOD"
	SubscriptionStateOnHold                  = "SUBSCRIPTION_STATE_ON_HOLD"
	SubscriptionStateCanceled                = "SUBSCRIPTION_STATE_CANCELED"
	SubscriptionStateExpired                 = "SUBSCRIPTION_STATE_EXPIRED"
	SubscriptionStatePendingPurchaseCanceled = "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED"
)

// SubscriptionPurchaseV2.AcknowledgementState values.
const (
	AcknowledgementStatePending      = "ACKNOWLEDGEMENT_STATE_PENDING"
	AcknowledgementStateAcknowledged = "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED"
)

// DeveloperNotification is a real-time developer notification, the data of
// a Pub/Sub message. Exactly one of the notification fields is set.
type DeveloperNotification struct {
	Version                    string                      `json:"version"`
	PackageName                string                      `json:"packageName"`
	EventTimeMillis            string                      `json:"eventTimeMillis"`
	SubscriptionNotification   *SubscriptionNotification   `json:"subscriptionNotification,omitempty"`
	VoidedPurchaseNotification *VoidedPurchaseNotification `json:"voidedPurchaseNotification,omitempty"`
	OneTimeProductNotification *OneTimeProductNotification `json:"oneTimeProductNotification,omitempty"`
	TestNotification           *TestNotification           `json:"testNotification,omitempty"`
}

// SubscriptionNotification says a subscription changed; it carries no state,
// so the subscription is read back from the API.
type SubscriptionNotification struct {
	Version          string `json:"version"`
	NotificationType int    `json:"notificationType"`
	PurchaseToken    string `json:"purchaseToken"`
	SubscriptionID   string `json:"subscriptionId"`
}

// VoidedPurchaseNotification says a purchase was refunded or charged back.
type VoidedPurchaseNotification struct {
	PurchaseToken string `json:"purchaseToken"`
	OrderID       string `json:"orderId"`
	ProductType   int    `json:"productType"`
	RefundType    int    `json:"refundType"`
}

// OneTimeProductNotification concerns an in-app product, never a subscription.
type OneTimeProductNotification struct {
	Version          string `json:"version"`
	NotificationType int    `json:"notificationType"`
	PurchaseToken    string `json:"purchaseToken"`
	SKU              string `json:"sku"`
}

// TestNotification is sent from the Play Console's "send test notification".
type TestNotification struct {
	Version string `json:"version"`
}

// SubscriptionNotification.NotificationType values.
const (
	SubscriptionRecovered               = 1
	SubscriptionRenewed                 = 2
	SubscriptionCanceled                = 3
	SubscriptionPurchased               = 4
	SubscriptionOnHold                  = 5
	SubscriptionInGracePeriod           = 6
	SubscriptionRestarted               = 7
	SubscriptionPriceChangeConfirmed    = 8
	SubscriptionDeferred                = 9
	SubscriptionPaused                  = 10
	SubscriptionPauseScheduleChanged    = 11
	SubscriptionRevoked                 = 12
	SubscriptionExpired                 = 13
	SubscriptionPendingPurchaseCanceled = 20
)

// VoidedPurchaseNotification.ProductType values.
const (
	ProductTypeSubscription = 1
	ProductTypeOneTime      = 2
)

var subscriptionTypeNames = map[int]string{
	SubscriptionRecovered:               "SUBSCRIPTION_RECOVERED",
	SubscriptionRenewed:                 "SUBSCRIPTION_RENEWED",
	SubscriptionCanceled:                "SUBSCRIPTION_CANCELED",
	SubscriptionPurchased:               "SUBSCRIPTION_PURCHASED",
	SubscriptionOnHold:                  "SUBSCRIPTION_ON_HOLD",
	SubscriptionInGracePeriod:           "SUBSCRIPTION_IN_GRACE_PERIOD",
	SubscriptionRestarted:               "SUBSCRIPTION_RESTARTED",
	SubscriptionPriceChangeConfirmed:    "SUBSCRIPTION_PRICE_CHANGE_CONFIRMED",
	SubscriptionDeferred:                "SUBSCRIPTION_DEFERRED",
	SubscriptionPaused:                  "SUBSCRIPTION_PAUSED",
	SubscriptionPauseScheduleChanged:    "SUBSCRIPTION_PAUSE_SCHEDULE_CHANGED",
	SubscriptionRevoked:                 "SUBSCRIPTION_REVOKED",
	SubscriptionExpired:                 "SUBSCRIPTION_EXPIRED",
	SubscriptionPendingPurchaseCanceled: "SUBSCRIPTION_PENDING_PURCHASE_CANCELED",
}

// SubscriptionTypeName is the API's name of a subscription notification
// type, "SUBSCRIPTION_<n>" for one this package does not know: a new type
// still re-reads the subscription, whose state is what counts.
func SubscriptionTypeName(t int) string {
	if name, ok := subscriptionTypeNames[t]; ok {
		return name
	}
	return "SUBSCRIPTION_" + strconv.Itoa(t)
}
