package httpapi

import (
	"fmt"

	"tandem/core"
	"tandem/modules/messages"
)

// renderLive renders a core.Live record as its REST read renders it.
func renderLive(rec any) (any, error) {
	switch r := rec.(type) {
	case messages.Message:
		return toMessageJSON(r), nil
	case core.Deleted:
		return map[string]string{"id": r.ID}, nil
	}
	return nil, fmt.Errorf("live: no renderer for %T", rec)
}
