package trust

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// Verdict is what the trust file says about one (id, fingerprint) (DC17).
type Verdict int

const (
	// Trusted means exactly this (id, fingerprint) is granted.
	Trusted Verdict = iota
	// untrusted means there is no grant at all for the id; the lifecycle reports it as
	// PluginUntrusted.
	untrusted
	// Modified means grants exist for the id, but not for this fingerprint; the lifecycle
	// reports it as PluginTrustModified.
	Modified
)

// String returns "trusted", "untrusted" or "modified", the words the CLI and the
// --json output use.
func (v Verdict) String() string {
	switch v {
	case Trusted:
		return "trusted"
	case untrusted:
		return "untrusted"
	case Modified:
		return "modified"
	}
	return fmt.Sprintf("Verdict(%d)", int(v))
}

// Grant is one (id, fingerprint) the operator approved. GrantedAt is informational only:
// it never affects a verdict.
type Grant struct {
	ID          string    `json:"id"`
	Fingerprint string    `json:"fingerprint"`
	GrantedAt   time.Time `json:"granted_at"`
}

// fileVersion is the only trust file version this package reads and writes.
const fileVersion = 1

// File is the decoded trust file. A File is a plain value: it is not safe for concurrent
// mutation, and changing it changes nothing on disk — use Store.Grant and Store.Revoke.
type File struct {
	Version int     `json:"version"` // 1
	Grants  []Grant `json:"grants"`  // sorted by id then fingerprint when written
}

// Verdict returns Trusted when exactly (id, fingerprint) is granted, Modified when the id
// has grants for other fingerprints only, and Untrusted when the id has no grant. A nil File
// grants nothing.
func (f *File) Verdict(id, fingerprint string) Verdict {
	if f == nil {
		return untrusted
	}
	v := untrusted
	for _, g := range f.Grants {
		if g.ID != id {
			continue
		}
		if g.Fingerprint == fingerprint {
			return Trusted
		}
		v = Modified
	}
	return v
}

// grantsFor returns a copy of the grants of one id, in file order. It returns nil when the
// id has none.
func (f *File) grantsFor(id string) []Grant {
	if f == nil {
		return nil
	}
	var out []Grant
	for _, g := range f.Grants {
		if g.ID == id {
			out = append(out, g)
		}
	}
	return out
}

// add appends (id, fingerprint) unless it is already granted, and reports whether it did.
func (f *File) add(id, fingerprint string, now time.Time) bool {
	if f.Verdict(id, fingerprint) == Trusted {
		return false
	}
	f.Grants = append(f.Grants, Grant{ID: id, Fingerprint: fingerprint, GrantedAt: now})
	return true
}

// remove deletes every copy of exactly (id, fingerprint) and reports whether there was one.
func (f *File) remove(id, fingerprint string) bool {
	n := len(f.Grants)
	f.Grants = slices.DeleteFunc(f.Grants, func(g Grant) bool {
		return g.ID == id && g.Fingerprint == fingerprint
	})
	return len(f.Grants) != n
}

// normalize puts f in its written form: version 1, grants sorted by id then fingerprint,
// one entry per pair (the earliest grant time wins), never a null list.
func (f *File) normalize() {
	f.Version = fileVersion
	slices.SortStableFunc(f.Grants, func(a, b Grant) int {
		return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(a.Fingerprint, b.Fingerprint),
			a.GrantedAt.Compare(b.GrantedAt))
	})
	f.Grants = slices.CompactFunc(f.Grants, func(a, b Grant) bool {
		return a.ID == b.ID && a.Fingerprint == b.Fingerprint
	})
	if f.Grants == nil {
		f.Grants = []Grant{}
	}
}
