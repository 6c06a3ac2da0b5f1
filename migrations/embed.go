// Package migrations embeds the goose SQL migrations, one folder per dialect
// with the same version numbers.
package migrations

import "embed"

//go:embed mysql/*.sql sqlite/*.sql
var FS embed.FS
