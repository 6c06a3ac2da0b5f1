package httpapi

import (
	"fmt"
	"reflect"

	"tandem/core"
)

// toExportJSON renders every section of an account export. Modules export
// their own typed records; each is rendered by the mappers of its handler
// file, so an export never drifts from what the API shows.
func toExportJSON(data map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(data))
	for section, v := range data {
		js, ok := toSectionJSON(v)
		if !ok {
			return nil, core.Internal(fmt.Errorf("export %s: no renderer for %T", section, v))
		}
		out[section] = js
	}
	return out, nil
}

// exportRenderers render a section by its type; each handler file adds
// the mapper of its module's section (exportSection), so no list here
// names every module.
var exportRenderers = map[reflect.Type]func(any) any{}

// exportSection makes f the renderer of the sections of type T. A handler
// file calls it once, in a package-level var next to its mapper.
func exportSection[T, J any](f func(T) J) bool {
	exportRenderers[reflect.TypeFor[T]()] = func(v any) any { return f(v.(T)) }
	return true
}

// toSectionJSON picks the mapper by the section's type; a new
// core.UserData owner adds its own with exportSection.
func toSectionJSON(v any) (any, bool) {
	render, ok := exportRenderers[reflect.TypeOf(v)]
	if !ok {
		return nil, false
	}
	return render(v), true
}
