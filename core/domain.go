package core

import (
	"context"
	"time"
)

// The domain events that cross module boundaries. They live in core because
// a module may not import another module.

// AccountDeleted: an account and its data are gone.
type AccountDeleted struct{ UserID string }

func (AccountDeleted) EventName() string { return "AccountDeleted" }

// WaysInEnded: a proof of the account's mailbox (or its owner's "log out
// everywhere") ended every earlier way in at At. Pairing requests made from
// the account before At go; when Unproven, the account had no proven owner
// before, so its partnership was made by someone else and ends too.
type WaysInEnded struct {
	UserID   string
	At       time.Time
	Unproven bool
}

func (WaysInEnded) EventName() string { return "WaysInEnded" }

// PartnershipEnded: two users are no longer partners (unpair, unlink, deletion).
type PartnershipEnded struct {
	PartnershipID string
	UserIDs       [2]string
}

func (PartnershipEnded) EventName() string { return "PartnershipEnded" }

// PartnershipStarted: two users became partners (pairing or connection code).
type PartnershipStarted struct {
	PartnershipID string
	UserIDs       [2]string
}

func (PartnershipStarted) EventName() string { return "PartnershipStarted" }

// TimezoneChanged: a user's profile timezone changed, so the instants of
// their local times (a daily reminder at 20:00) move.
type TimezoneChanged struct {
	UserID   string
	Timezone string // IANA name, "" for UTC
}

func (TimezoneChanged) EventName() string { return "TimezoneChanged" }

// UserData is implemented by every module that stores a user's data, from its
// first version: account deletion purges through it and export collects it.
// Modules contribute one through the "userdata" value group.
type UserData interface {
	// Section names the module's part of an export ("events", "memories"...).
	Section() string
	// ExportUser returns the user's data as the module's own typed values:
	// its records, or a small export type where the export is not one of
	// them. Never JSON shapes: the adapter renders each section with the
	// mappers of its API answers. nil (untyped): the owner has no section
	// (the change feed, copies of the other sections' records).
	ExportUser(ctx context.Context, userID string) (any, error)
	// PurgeUser deletes the user's data; it is idempotent.
	PurgeUser(ctx context.Context, userID string) error
}

// EndsSharing is a UserData owner whose purge ends what the user shares
// with another (the partnership, whose end tells the ex-partner of every
// record they may no longer read): an account's deletion purges it before
// every other owner, while those records still exist.
type EndsSharing interface {
	UserData
	EndsSharing()
}

// Live is something that happened to a couple, for their open apps (the
// live partner stream). For holds, per reader, the module's own typed
// record as that reader's REST read would show it (a messages.Message, a
// questions.View...); a user without an entry hears nothing, so a module
// leaves out whoever may not read the record. The HTTP adapter renders
// each record with the mapper of its REST answer. Type is "message.sent",
// "memory.created"...; see the stream's documentation in /openapi.json.
type Live struct {
	Type string
	For  map[string]any
}

func (Live) EventName() string { return "Live" }

// Deleted is the record of a *.deleted live event: only the id is left.
type Deleted struct{ ID string }
