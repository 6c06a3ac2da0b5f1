package bootstrap

import (
	"math"
	"runtime/debug"
	"testing"
	"testing/fstest"
)

const (
	gib      = 1 << 30
	meminfo  = "MemTotal:       25165824 kB\nMemFree:        23426804 kB\n" // 24 GiB
	mountV2  = "30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate\n"
	mountV1  = "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
	mountCPU = "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
)

func TestAvailableMemory(t *testing.T) {
	t.Parallel()
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	cases := []struct {
		name       string
		files      fstest.MapFS
		want       int64
		wantSource string
	}{
		{"cgroup v2 container: its memory.max", fstest.MapFS{
			"proc/meminfo": file(meminfo), "proc/self/cgroup": file("0::/\n"), "proc/self/mountinfo": file(mountV2),
			"sys/fs/cgroup/memory.max": file("1073741824\n"),
		}, gib, "/sys/fs/cgroup/memory.max"},
		{`cgroup v2 "max": the machine's memory`, fstest.MapFS{
			"proc/meminfo": file(meminfo), "proc/self/cgroup": file("0::/\n"), "proc/self/mountinfo": file(mountV2),
			"sys/fs/cgroup/memory.max": file("max\n"),
		}, 24 * gib, "/proc/meminfo"},
		{"cgroup v2 service: the limit of the slice above it", fstest.MapFS{
			"proc/meminfo": file(meminfo), "proc/self/cgroup": file("0::/system.slice/tandem.service\n"),
			"proc/self/mountinfo": file(mountV2),
			"sys/fs/cgroup/system.slice/tandem.service/memory.max": file("max\n"),
			"sys/fs/cgroup/system.slice/memory.max":                file("2147483648\n"),
		}, 2 * gib, "/sys/fs/cgroup/system.slice/memory.max"},
		{"cgroup v2: the lowest on the way up", fstest.MapFS{
			"proc/meminfo": file(meminfo), "proc/self/cgroup": file("0::/system.slice/tandem.service\n"),
			"proc/self/mountinfo": file(mountV2),
			"sys/fs/cgroup/system.slice/tandem.service/memory.max": file("536870912\n"),
			"sys/fs/cgroup/system.slice/memory.max":                file("2147483648\n"),
		}, gib / 2, "/sys/fs/cgroup/system.slice/tandem.service/memory.max"},
		{"cgroup v2, memory.max missing: the machine's memory", fstest.MapFS{
			"proc/meminfo": file(meminfo), "proc/self/cgroup": file("0::/user.slice\n"), "proc/self/mountinfo": file(mountV2),
		}, 24 * gib, "/proc/meminfo"},
		{"cgroup v2, a limit over the machine's memory: the machine's", fstest.MapFS{
			"proc/meminfo": file(meminfo), "proc/self/cgroup": file("0::/\n"), "proc/self/mountinfo": file(mountV2),
			"sys/fs/cgroup/memory.max": file("68719476736\n"),
		}, 24 * gib, "/proc/meminfo"},
		{"cgroup v2, a memory.max that is no number: ignored", fstest.MapFS{
			"proc/meminfo": file(meminfo), "proc/self/cgroup": file("0::/\n"), "proc/self/mountinfo": file(mountV2),
			"sys/fs/cgroup/memory.max": file("lots\n"),
		}, 24 * gib, "/proc/meminfo"},
		{"cgroup v1 container: memory.limit_in_bytes at its mount's root", fstest.MapFS{
			"proc/meminfo":        file(meminfo),
			"proc/self/cgroup":    file("5:cpu,cpuacct:/docker/abc\n4:memory:/docker/abc\n0::/\n"),
			"proc/self/mountinfo": file(mountCPU + "35 31 0:32 /docker/abc /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"),
			"sys/fs/cgroup/memory/memory.limit_in_bytes": file("536870912\n"),
		}, gib / 2, "/sys/fs/cgroup/memory/memory.limit_in_bytes"},
		{"cgroup v1 unlimited beside a v2 hierarchy: the machine's memory", fstest.MapFS{
			"proc/meminfo":     file(meminfo),
			"proc/self/cgroup": file("4:memory:/process_api/f1\n1:cpu:/\n0::/\n"),
			"proc/self/mountinfo": file(mountCPU + mountV1 +
				"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"),
			"sys/fs/cgroup/memory/process_api/f1/memory.limit_in_bytes": file("9223372036854771712\n"),
			"sys/fs/cgroup/memory/memory.limit_in_bytes":                file("9223372036854771712\n"),
		}, 24 * gib, "/proc/meminfo"},
		{"cgroup v1, a mount point with a space", fstest.MapFS{
			"proc/meminfo":        file(meminfo),
			"proc/self/cgroup":    file("4:memory:/tandem\n"),
			"proc/self/mountinfo": file(`35 31 0:32 / /sys/fs/cgroup/mem\040ory rw - cgroup cgroup rw,memory` + "\n"),
			"sys/fs/cgroup/mem ory/tandem/memory.limit_in_bytes": file("1073741824\n"),
		}, gib, "/sys/fs/cgroup/mem ory/tandem/memory.limit_in_bytes"},
		{"no /proc/self files: the container's memory.max where it usually is", fstest.MapFS{
			"proc/meminfo": file(meminfo), "sys/fs/cgroup/memory.max": file("1073741824\n"),
		}, gib, "/sys/fs/cgroup/memory.max"},
		{"no cgroup: /proc/meminfo", fstest.MapFS{"proc/meminfo": file(meminfo)}, 24 * gib, "/proc/meminfo"},
		{"a cgroup limit and no /proc/meminfo", fstest.MapFS{
			"proc/self/cgroup": file("0::/\n"), "proc/self/mountinfo": file(mountV2),
			"sys/fs/cgroup/memory.max": file("1073741824\n"),
		}, gib, "/sys/fs/cgroup/memory.max"},
		{"a meminfo without MemTotal", fstest.MapFS{"proc/meminfo": file("MemFree: 1 kB\n")}, 0, ""},
		{"nothing (not Linux)", fstest.MapFS{}, 0, ""},
	}
	for _, tc := range cases {
		got, source := availableMemory(tc.files)
		if got != tc.want || source != tc.wantSource {
			t.Errorf("%s: %d from %q, want %d from %q", tc.name, got, source, tc.want, tc.wantSource)
		}
	}
}

// Not parallel: the memory limit is the process's.
func TestMemoryLimitIsASharePassedOverByGOMEMLIMIT(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	fsys := fstest.MapFS{"proc/meminfo": &fstest.MapFile{Data: []byte("MemTotal: 1000000 kB\n")}}
	env := func(kv ...string) func(string) (string, bool) {
		return func(k string) (string, bool) {
			if len(kv) == 2 && kv[0] == k {
				return kv[1], true
			}
			return "", false
		}
	}

	debug.SetMemoryLimit(math.MaxInt64)
	got := tuneMemoryLimit(env(), fsys)
	want := MemoryLimit{Bytes: 921_600_000, Source: "/proc/meminfo", Of: 1_024_000_000}
	if got != want || debug.SetMemoryLimit(-1) != want.Bytes {
		t.Errorf("GOMEMLIMIT unset: %+v, runtime %d; want %+v", got, debug.SetMemoryLimit(-1), want)
	}

	debug.SetMemoryLimit(math.MaxInt64)
	if got := tuneMemoryLimit(env("GOMEMLIMIT", ""), fsys); got != want {
		t.Errorf("GOMEMLIMIT empty: %+v, want it unset: %+v", got, want)
	}

	debug.SetMemoryLimit(900 << 20) // as the runtime read GOMEMLIMIT=900MiB
	got = tuneMemoryLimit(env("GOMEMLIMIT", "900MiB"), fsys)
	if want := (MemoryLimit{Bytes: 900 << 20, Source: "GOMEMLIMIT"}); got != want || debug.SetMemoryLimit(-1) != 900<<20 {
		t.Errorf("GOMEMLIMIT set: %+v, runtime %d; want %+v, left as it is", got, debug.SetMemoryLimit(-1), want)
	}

	debug.SetMemoryLimit(math.MaxInt64) // GOMEMLIMIT=off
	if got := tuneMemoryLimit(env("GOMEMLIMIT", "off"), fsys); got != (MemoryLimit{Source: "GOMEMLIMIT"}) || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		t.Errorf("GOMEMLIMIT=off: %+v, runtime %d; want none", got, debug.SetMemoryLimit(-1))
	}

	debug.SetMemoryLimit(math.MaxInt64)
	if got := tuneMemoryLimit(env(), fstest.MapFS{}); got != (MemoryLimit{}) || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		t.Errorf("nothing to read: %+v, runtime %d; want no limit set", got, debug.SetMemoryLimit(-1))
	}
}
