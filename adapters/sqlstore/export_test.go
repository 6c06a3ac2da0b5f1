package sqlstore

// SetObserver lets tests see every statement before it runs (EXPLAIN checks).
func SetObserver(d *DB, f func(query string, args []any)) { d.observe = f }
