package premium

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"tandem/core"
)

// NoLimit is a Quota value the limits object does not set: not enforced.
const NoLimit = -1

// Quota is the part of a limits object the service enforces: how many
// memories and how many bytes of stored images a user may keep.
type Quota struct {
	Memories int64  // "memories"; NoLimit when absent
	Storage  int64  // "storage" in bytes; NoLimit when absent
	Label    string // "storage" as configured ("1GB"), for messages; "" when absent
}

// Quota reads the enforced keys of l: "memories", a whole number from 0, and
// "storage", a size (see ParseSize). A key l lacks is NoLimit; the other keys
// are only shown to clients.
func (l Limits) Quota() (Quota, error) {
	q := Quota{Memories: NoLimit, Storage: NoLimit}
	if v, ok := l["memories"]; ok {
		n, err := wholeNumber(v)
		if err != nil {
			return Quota{}, fmt.Errorf("memories: %w", err)
		}
		q.Memories = n
	}
	if v, ok := l["storage"]; ok {
		n, label, err := storage(v)
		if err != nil {
			return Quota{}, fmt.Errorf("storage: %w", err)
		}
		q.Storage, q.Label = n, label
	}
	return q, nil
}

// storage reads a size: a string for ParseSize, or a whole number of bytes.
func storage(v any) (int64, string, error) {
	if s, ok := v.(string); ok {
		n, err := ParseSize(s)
		return n, strings.TrimSpace(s), err
	}
	n, err := wholeNumber(v)
	if err != nil {
		return 0, "", fmt.Errorf("%v is not a size such as \"1GB\" or a number of bytes", v)
	}
	return n, strconv.FormatInt(n, 10) + " bytes", nil
}

// wholeNumber accepts a JSON number (json.Number from the config, float64
// from a plain decode, or an int from Go code) that is a whole number >= 0.
func wholeNumber(v any) (int64, error) {
	var f float64
	switch n := v.(type) {
	case json.Number:
		i, err := n.Int64()
		if err != nil || i < 0 {
			return 0, fmt.Errorf("%s is not a whole number from 0", n)
		}
		return i, nil
	case int:
		f = float64(n)
	case int64:
		f = float64(n)
	case float64:
		f = n
	default:
		return 0, fmt.Errorf("%v is not a number", v)
	}
	if f < 0 || f != math.Trunc(f) || f > math.MaxInt64/2 {
		return 0, fmt.Errorf("%v is not a whole number from 0", v)
	}
	return int64(f), nil
}

// sizeUnits are binary: 1KB = 1 KiB = 1024 bytes, 1GB = 1 GiB = 1<<30 bytes,
// as storage is usually counted in apps (the spec's "1GB" and "100GB").
var sizeUnits = map[string]int64{
	"": 1, "B": 1,
	"KB": 1 << 10, "KIB": 1 << 10,
	"MB": 1 << 20, "MIB": 1 << 20,
	"GB": 1 << 30, "GIB": 1 << 30,
	"TB": 1 << 40, "TIB": 1 << 40,
}

// ParseSize reads a storage size: a whole number and a unit, B, KB, MB, GB or
// TB (binary, see sizeUnits; KiB... too; any case; a space between allowed;
// no unit means bytes), e.g. "1GB" = 1073741824 and "500MB" = 524288000.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	digits := len(t) - len(strings.TrimLeft(t, "0123456789"))
	unit, ok := sizeUnits[strings.ToUpper(strings.TrimSpace(t[digits:]))]
	n, err := strconv.ParseInt(t[:digits], 10, 64)
	if digits == 0 || !ok || err != nil || n > math.MaxInt64/unit {
		return 0, fmt.Errorf("%q is not a size such as 500MB or 1GB (units B, KB, MB, GB, TB; 1GB = 1024 MB)", s)
	}
	return n * unit, nil
}

// Quota returns the enforced limits of the user's premium state: the premium
// limits when the user is premium, directly or through the partner, else the
// free ones. The policy is checked at start (bootstrap), so a bad value here
// is an internal error.
func (s *Service) Quota(ctx context.Context, userID string) (Quota, error) {
	st, err := s.Status(ctx, userID)
	if err != nil {
		return Quota{}, err
	}
	q, err := s.policy.limits(st.IsPremium).Quota()
	if err != nil {
		return Quota{}, core.Internal(fmt.Errorf("premium: limits: %w", err))
	}
	return q, nil
}
