package bootstrap

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"tandem/adapters/sqlstore"
)

// backupArgs reads `tandem backup DIR [--dump FILE]` (the flag before or
// after DIR, --dump=FILE too).
func backupArgs(args []string) (dir, dump string, err error) {
	const usage = "usage: tandem backup DIR [--dump FILE]  (FILE: the MySQL dump made just before, on MySQL)"
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--dump" || a == "-dump":
			if i+1 == len(args) || args[i+1] == "" {
				return "", "", errors.New("backup: --dump needs the dump's file\n" + usage)
			}
			if dump != "" {
				return "", "", errors.New("backup: --dump is given twice\n" + usage)
			}
			dump, i = args[i+1], i+1
		case strings.HasPrefix(a, "--dump=") || strings.HasPrefix(a, "-dump="):
			if dump != "" {
				return "", "", errors.New("backup: --dump is given twice\n" + usage)
			}
			_, dump, _ = strings.Cut(a, "=")
			if dump == "" {
				return "", "", errors.New("backup: --dump needs the dump's file\n" + usage)
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			return "", "", fmt.Errorf("backup: unknown flag %s\n%s", a, usage)
		default:
			rest = append(rest, a)
		}
	}
	if len(rest) != 1 {
		return "", "", errors.New(usage)
	}
	return rest[0], dump, nil
}

// describeDump says why a --dump file was refused.
func describeDump(info fs.FileInfo, err error) string {
	switch {
	case err != nil:
		return err.Error()
	case !info.Mode().IsRegular():
		return "not a regular file"
	default:
		return "it is empty"
	}
}

// dumpEnd is what mysqldump and mariadb-dump write last (unless told to
// skip comments): a dump without it may have been cut short.
const dumpEnd = "-- Dump completed"

// copyDump copies the MySQL dump at src into dir (dumpName, 0600: it holds
// what the database holds) and describes it for the manifest: its size and
// SHA-256, which restore checks before it writes anything.
func copyDump(src, dir string, stdout io.Writer) (*manifestDB, error) {
	in, err := os.Open(src)
	if err != nil {
		return nil, fmt.Errorf("backup: --dump: %w", err)
	}
	defer in.Close()
	target := filepath.Join(dir, dumpName)
	out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, snapshotMode)
	if err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	h := sha256.New()
	tail := &lastBytes{n: 512}
	n, err := io.Copy(io.MultiWriter(out, h, tail), in)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(target)
		return nil, fmt.Errorf("backup: --dump %s: %w", src, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	fmt.Fprintf(stdout, "database: MySQL dump %s copied as %s, %d bytes, SHA-256 %s\n", src, dumpName, n, sum)
	if !bytes.Contains(tail.b, []byte(dumpEnd)) {
		fmt.Fprintf(stdout, "warning: %s does not end with %q as mysqldump's dumps do: make sure it was not cut short\n", src, dumpEnd)
	}
	return &manifestDB{Dialect: string(sqlstore.MySQL), File: dumpName, Size: n, SHA256: sum}, nil
}

// lastBytes keeps the last n bytes written to it.
type lastBytes struct {
	n int
	b []byte
}

func (l *lastBytes) Write(p []byte) (int, error) {
	l.b = append(l.b, p...)
	if len(l.b) > l.n {
		l.b = append(l.b[:0], l.b[len(l.b)-l.n:]...)
	}
	return len(p), nil
}
