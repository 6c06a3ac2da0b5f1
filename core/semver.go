package core

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is a client application version MAJOR.MINOR.PATCH, with an
// optional build (the "+build" suffix or a separate build number).
type Version struct {
	Major, Minor, Patch int
	Build               int // 0 when unknown
}

// VersionPattern is ParseVersion's rule as the API document states it
// (see TrimmedLinePattern).
const VersionPattern = `^[` + textSpace + `]*v?[0-9]{1,9}\.[0-9]{1,9}(?:\.[0-9]{1,9})?(?:\+[0-9]{1,9})?[` + textSpace + `]*$`

// ParseVersion accepts "1.2.3", "1.2.3+45", "v1.2.3", and tolerates "1.2"
// (patch 0) because app stores show such versions. Each number, the build
// too, is 1 to 9 decimal digits.
func ParseVersion(s string) (Version, error) {
	bad := Invalid("invalid_version", "core.notVersionMAJORMINORPATCH", "%q is not a version MAJOR.MINOR.PATCH", s)
	core, build, hasBuild := strings.Cut(strings.TrimPrefix(strings.TrimSpace(s), "v"), "+")
	fields := strings.Split(core, ".")
	if len(fields) < 2 || len(fields) > 3 {
		return Version{}, bad
	}
	var nums [3]int
	for i, f := range fields {
		n, ok := versionNumber(f)
		if !ok {
			return Version{}, bad
		}
		nums[i] = n
	}
	v := Version{Major: nums[0], Minor: nums[1], Patch: nums[2]}
	if hasBuild {
		n, ok := versionNumber(build)
		if !ok {
			return Version{}, bad
		}
		v.Build = n
	}
	return v, nil
}

// versionNumber reads one number of a version: 1 to 9 decimal digits, no
// sign (strconv.Atoi alone took "+4" and "-0", and builds of any length).
func versionNumber(s string) (int, bool) {
	if len(s) == 0 || len(s) > 9 || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// Compare orders versions by major, minor, patch, then build (-1, 0, +1).
func (v Version) Compare(o Version) int {
	for _, d := range [4]int{v.Major - o.Major, v.Minor - o.Minor, v.Patch - o.Patch, v.Build - o.Build} {
		if d != 0 {
			if d < 0 {
				return -1
			}
			return 1
		}
	}
	return 0
}

func (v Version) String() string {
	s := fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
	if v.Build > 0 {
		s += "+" + strconv.Itoa(v.Build)
	}
	return s
}
