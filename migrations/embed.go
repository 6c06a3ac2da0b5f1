// Package migrations embeds the goose SQL migrations: one folder per
// dialect, and common/ for the migrations whose SQL both dialects run as
// written (an added column, an index), so such a change is one file. The
// version numbers are shared: a number is in common/ or in both dialects'.
package migrations

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"testing/fstest"
)

//go:embed mysql/*.sql sqlite/*.sql common/*.sql
var files embed.FS

// For is the migrations dialect ("mysql", "sqlite") runs, its own and the
// common ones, as one folder.
func For(dialect string) (fs.FS, error) {
	out := fstest.MapFS{}
	versions := map[string]string{}
	for _, dir := range []string{dialect, "common"} {
		entries, err := fs.ReadDir(files, dir)
		if err != nil {
			return nil, fmt.Errorf("migrations of %s: %w", dialect, err)
		}
		for _, e := range entries {
			version, _, _ := strings.Cut(e.Name(), "_")
			if prev, dup := versions[version]; dup {
				return nil, fmt.Errorf("migrations: version %s is both %s and %s/%s", version, prev, dir, e.Name())
			}
			versions[version] = dir + "/" + e.Name()
			data, err := fs.ReadFile(files, dir+"/"+e.Name())
			if err != nil {
				return nil, err
			}
			out[e.Name()] = &fstest.MapFile{Data: data, Mode: 0o444}
		}
	}
	return out, nil
}

// Names are the file names of For(dialect), in version order.
func Names(dialect string) ([]string, error) {
	fsys, err := For(dialect)
	if err != nil {
		return nil, err
	}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	sort.Strings(names)
	return names, nil
}
