package admin

import "go.uber.org/fx"

// Module provides the console's audit log and overview, and the audited
// account changes; storage and Accounts are bound by the adapter modules
// and bootstrap, which also makes the audited writes of the other modules
// (AuditedFlags, AuditedPolicies, AuditedFeedback) with their renderings.
var Module = fx.Module("admin", fx.Provide(NewService, NewAuditedAccounts))
