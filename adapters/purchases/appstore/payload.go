package appstore

// The payloads Apple signs, with the fields read here. The JSON names are
// Apple's (App Store Server API, "JWSTransactionDecodedPayload" and friends):
// do not rename them. appstoretest signs the same structs, so signing and
// parsing cannot drift apart. Dates are milliseconds since the epoch.

// Transaction types (Transaction.Type).
const (
	TypeAutoRenewable = "Auto-Renewable Subscription"
	TypeNonRenewing   = "Non-Renewing Subscription"
	TypeNonConsumable = "Non-Consumable"
	TypeConsumable    = "Consumable"
)

// Environments (Config.Environment and the payloads' environment).
const (
	Production = "Production"
	Sandbox    = "Sandbox"
)

// Transaction is a StoreKit 2 transaction (signedTransactionInfo).
type Transaction struct {
	TransactionID         string `json:"transactionId,omitempty"`
	OriginalTransactionID string `json:"originalTransactionId,omitempty"`
	BundleID              string `json:"bundleId,omitempty"`
	ProductID             string `json:"productId,omitempty"`
	PurchaseDate          int64  `json:"purchaseDate,omitempty"`
	OriginalPurchaseDate  int64  `json:"originalPurchaseDate,omitempty"`
	ExpiresDate           int64  `json:"expiresDate,omitempty"`
	Type                  string `json:"type,omitempty"`
	Environment           string `json:"environment,omitempty"`
	RevocationDate        int64  `json:"revocationDate,omitempty"`
	RevocationReason      *int   `json:"revocationReason,omitempty"` // 0 is a reason ("other"), so absent is nil
	SignedDate            int64  `json:"signedDate,omitempty"`
	AppAccountToken       string `json:"appAccountToken,omitempty"`
}

// RenewalInfo is a subscription's renewal state (signedRenewalInfo).
type RenewalInfo struct {
	OriginalTransactionID  string `json:"originalTransactionId,omitempty"`
	AutoRenewStatus        int    `json:"autoRenewStatus"` // 1 on, 0 off
	GracePeriodExpiresDate int64  `json:"gracePeriodExpiresDate,omitempty"`
	IsInBillingRetryPeriod bool   `json:"isInBillingRetryPeriod,omitempty"`
	ExpirationIntent       int    `json:"expirationIntent,omitempty"`
	SignedDate             int64  `json:"signedDate,omitempty"`
}

// NotificationPayload is an App Store Server Notification V2
// (responseBodyV2DecodedPayload). A summary notification (RENEWAL_EXTENSION
// with subtype SUMMARY) carries Summary instead of Data.
type NotificationPayload struct {
	NotificationType string               `json:"notificationType"`
	Subtype          string               `json:"subtype,omitempty"`
	NotificationUUID string               `json:"notificationUUID"`
	Version          string               `json:"version,omitempty"`
	SignedDate       int64                `json:"signedDate"`
	Data             *NotificationData    `json:"data,omitempty"`
	Summary          *NotificationSummary `json:"summary,omitempty"`
}

// NotificationData is what a notification is about.
type NotificationData struct {
	BundleID              string `json:"bundleId"`
	Environment           string `json:"environment"`
	SignedTransactionInfo string `json:"signedTransactionInfo,omitempty"`
	SignedRenewalInfo     string `json:"signedRenewalInfo,omitempty"`
	Status                int    `json:"status,omitempty"`
}

// NotificationSummary is the app part of a summary notification: only its
// app is checked, since it changes no single subscription.
type NotificationSummary struct {
	BundleID    string `json:"bundleId"`
	Environment string `json:"environment"`
}
