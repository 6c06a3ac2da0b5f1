package web

import (
	"tandem/modules/admin"
	"tandem/modules/feedback"
	"tandem/modules/flags"
	"tandem/modules/versions"
)

// The admin module's audited writes on this service's types, as bootstrap
// makes them (each state recorded as httpapi.FlagRecord, PolicyRecord or
// FeedbackRecord renders it: the log keeps what the API shows). The API's
// handlers, the console and the command line make their administrators'
// changes through them.
type (
	AuditedFlags    = admin.AuditedFlags[flags.Flag, flags.Draft, flags.Patch]
	AuditedPolicies = admin.AuditedPolicies[versions.Policy, versions.PolicyDraft]
	AuditedFeedback = admin.AuditedFeedback[feedback.Feedback]
)
