package sqlstore

import (
	"fmt"
	"time"

	"tandem/core"
)

// dbDate scans a civil-date column: MySQL DATE arrives as time.Time (parseTime,
// UTC), SQLite TEXT as "YYYY-MM-DD"; NULL is the zero Date. It keeps core.Date
// free of database/sql.
type dbDate struct{ core.Date }

func (d *dbDate) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		d.Date = core.Date{}
		return nil
	case time.Time:
		d.Date = core.DateOf(v.UTC())
		return nil
	case string:
		return d.parse(v)
	case []byte:
		return d.parse(string(v))
	}
	return fmt.Errorf("sqlstore: cannot scan %T into a date", src)
}

func (d *dbDate) parse(s string) error {
	v, err := core.ParseDate(s)
	if err != nil {
		return fmt.Errorf("sqlstore: bad date %q", s)
	}
	d.Date = v
	return nil
}

// dateArg is the value to store for d: "YYYY-MM-DD", or NULL for the zero Date.
func dateArg(d core.Date) any {
	if d.IsZero() {
		return nil
	}
	return d.String()
}

// zeroMillis stores the zero time as 0 (the columns' "none", which the rows
// read back as the zero time), any other as its milliseconds.
func zeroMillis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}
