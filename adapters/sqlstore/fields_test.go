package sqlstore

import (
	"reflect"
	"slices"
	"testing"
)

// TestRowFieldsFollowTheirColumns: a row type scanned by scanSelect lists
// its fields in the order of the columns its queries select, every field
// once, so a column added to one and not the other fails here rather than
// scanning a title into a description.
func TestRowFieldsFollowTheirColumns(t *testing.T) {
	var row eventRow
	checkFields(t, &row, row.fields(), eventColumns)
}

func checkFields(t *testing.T, row any, fields []any, columns []string) {
	t.Helper()
	v := reflect.ValueOf(row).Elem()
	var tags []string
	for i := range v.NumField() {
		tags = append(tags, v.Type().Field(i).Tag.Get("db"))
	}
	if !slices.Equal(tags, columns) {
		t.Fatalf("%s's db tags %v are not its columns %v", v.Type(), tags, columns)
	}
	if len(fields) != v.NumField() {
		t.Fatalf("%s lists %d fields of %d", v.Type(), len(fields), v.NumField())
	}
	for i, f := range fields {
		if reflect.ValueOf(f).Pointer() != v.Field(i).Addr().Pointer() {
			t.Errorf("%s: field %d of fields() is not %s", v.Type(), i, v.Type().Field(i).Name)
		}
	}
}
