package bootstrap

import (
	"bytes"
	"io/fs"
	"math"
	"path"
	"runtime/debug"
	"strconv"
	"strings"
)

// memoryShare is the share of the memory tandem serve may use (its
// container's limit, else the machine's) that it takes as the runtime's
// soft memory limit when GOMEMLIMIT is not set. Near the limit the collector
// runs more often and the runtime gives freed memory back to the system at
// once instead of keeping it for later, so a burst of image decodes cannot
// grow the process into the container's hard limit; 10% is left for what
// the limit does not count (thread stacks outside the heap, the binary,
// SQLite's page cache in C memory).
const memoryShare = 0.9

// MemoryLimit is the runtime's soft memory limit as TuneGC left it.
type MemoryLimit struct {
	Bytes  int64  // the limit; 0: none
	Source string // "GOMEMLIMIT", the cgroup file read, or "/proc/meminfo"
	Of     int64  // the memory Bytes is memoryShare of; 0 with GOMEMLIMIT
}

// tuneMemoryLimit sets the runtime's soft memory limit to memoryShare of
// the memory available to the process (fsys is the root of the file
// system: /proc and /sys), unless GOMEMLIMIT is set: the operator's value
// (or "off") rules, as the runtime reads it.
func tuneMemoryLimit(lookupEnv func(string) (string, bool), fsys fs.FS) MemoryLimit {
	if v, set := lookupEnv("GOMEMLIMIT"); set && v != "" { // empty is unset, as the runtime reads it
		lim := debug.SetMemoryLimit(-1)
		if lim == math.MaxInt64 {
			lim = 0
		}
		return MemoryLimit{Bytes: lim, Source: "GOMEMLIMIT"}
	}
	avail, source := availableMemory(fsys)
	if avail <= 0 {
		return MemoryLimit{}
	}
	lim := int64(float64(avail) * memoryShare)
	debug.SetMemoryLimit(lim)
	return MemoryLimit{Bytes: lim, Source: source, Of: avail}
}

// availableMemory is the smaller of the memory limit of the process's
// cgroup (or of any cgroup above it) and the machine's memory, with the file
// it came from; 0 when neither can be read (not Linux).
func availableMemory(fsys fs.FS) (int64, string) {
	total, source := memTotal(fsys), "/proc/meminfo"
	if lim, file := cgroupMemoryLimit(fsys); lim > 0 && (total == 0 || lim < total) {
		total, source = lim, "/"+file
	}
	if total == 0 {
		return 0, ""
	}
	return total, source
}

// memTotal is MemTotal of /proc/meminfo in bytes, 0 when unreadable.
func memTotal(fsys fs.FS) int64 {
	b, err := fs.ReadFile(fsys, "proc/meminfo")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) == 3 && f[0] == "MemTotal:" && f[2] == "kB" {
			if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil && kb > 0 && kb < math.MaxInt64/1024 {
				return kb * 1024
			}
		}
	}
	return 0
}

// cgroupMemoryLimit is the lowest memory limit of the process's cgroup and
// the cgroups above it up to the mount's root, with the file that set it:
// memory.max under cgroup v2 ("max" is none), memory.limit_in_bytes under
// v1 (none is a huge number, which the machine's memory then undercuts).
// The cgroup is the one /proc/self/cgroup names for the memory controller
// (a v1 hierarchy holding it, else the v2 one), found below its mount in
// /proc/self/mountinfo; without those files, the usual paths of a
// container's own cgroup are read. 0 when there is no limit.
func cgroupMemoryLimit(fsys fs.FS) (int64, string) {
	dir, top, file, ok := memoryCgroup(fsys)
	if !ok {
		for _, f := range []string{"sys/fs/cgroup/memory.max", "sys/fs/cgroup/memory/memory.limit_in_bytes"} {
			if lim, ok := readLimit(fsys, f); ok {
				return lim, f
			}
		}
		return 0, ""
	}
	var best int64
	var from string
	for d := dir; ; d = path.Dir(d) {
		f := path.Join(d, file)
		if lim, ok := readLimit(fsys, f); ok && (best == 0 || lim < best) {
			best, from = lim, f
		}
		if d == top || d == "." || d == "/" {
			return best, from
		}
	}
}

// readLimit reads a limit file: a number of bytes, or "max" (no limit:
// ok false, as for a file that is missing or unreadable).
func readLimit(fsys fs.FS, file string) (int64, bool) {
	b, err := fs.ReadFile(fsys, file)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
	return n, err == nil && n > 0
}

// memoryCgroup finds the directory of the process's memory cgroup (dir),
// the mount point it is under (top, where walking up stops) and the name of
// its limit file.
func memoryCgroup(fsys fs.FS) (dir, top, file string, ok bool) {
	b, err := fs.ReadFile(fsys, "proc/self/cgroup")
	if err != nil {
		return "", "", "", false
	}
	// hierarchy-ID:controller-list:cgroup-path; v2 is 0 with no controllers.
	var v1, v2 string
	for line := range strings.Lines(string(b)) {
		id, rest, _ := strings.Cut(strings.TrimRight(line, "\n"), ":")
		controllers, p, found := strings.Cut(rest, ":")
		switch {
		case !found || !strings.HasPrefix(p, "/"):
		case id == "0" && controllers == "":
			v2 = p
		case hasWord(controllers, ",", "memory"):
			v1 = p
		}
	}
	version, cgroup, file := "cgroup", v1, "memory.limit_in_bytes"
	if v1 == "" {
		version, cgroup, file = "cgroup2", v2, "memory.max"
	}
	if cgroup == "" {
		return "", "", "", false
	}
	mi, err := fs.ReadFile(fsys, "proc/self/mountinfo")
	if err != nil {
		return "", "", "", false
	}
	for line := range strings.Lines(string(mi)) {
		// ID parent major:minor root mount-point options [optional...] - type source super-options
		pre, post, found := strings.Cut(strings.TrimRight(line, "\n"), " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !found || len(f) < 5 || len(g) < 3 || g[0] != version {
			continue
		}
		if version == "cgroup" && !hasWord(g[2], ",", "memory") {
			continue
		}
		root, mnt := unescapeMount(f[3]), unescapeMount(f[4])
		rel, inside := strings.CutPrefix(cgroup, root)
		if root == "/" {
			rel, inside = cgroup, true
		}
		if !inside || (rel != "" && !strings.HasPrefix(rel, "/")) || strings.HasPrefix(rel, "/..") {
			continue // a mount of another part of the hierarchy
		}
		top = strings.TrimPrefix(path.Clean(mnt), "/")
		return path.Join(top, rel), top, file, top != ""
	}
	return "", "", "", false
}

func hasWord(list, sep, w string) bool {
	for s := range strings.SplitSeq(list, sep) {
		if s == w {
			return true
		}
	}
	return false
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
