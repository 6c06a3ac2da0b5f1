package httpapi

import (
	"slices"
	"strings"

	"tandem/core"
)

// Action-style bodies and queries ({"action": "create", ...}) are told apart
// here, in the handlers, which map each action to its own service call:
// services never see the word. checkAction is the one refusal for a missing
// or unknown action.
func checkAction(action string, known ...string) error {
	if slices.Contains(known, action) {
		return nil
	}
	list := strings.Join(known, ", ") // no "or": the list fills a sentence in any language
	if action == "" {
		return core.Invalid("invalid_request", "httpapi.actionRequired", "action is required: %s", list)
	}
	return core.Invalid("invalid_request", "httpapi.unknownActionUse", "unknown action %q: use %s", action, list)
}
