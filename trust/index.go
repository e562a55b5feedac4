package trust

// Index answers Verdict for one trust file in constant time. The host asks
// for every installed plugin at start and on every re-evaluation, so a scan
// of every grant per plugin would make starting n granted plugins
// quadratic.
type Index struct {
	byID map[string]map[string]bool // id → granted fingerprints
}

// Index indexes f's grants. A nil File grants nothing.
func (f *File) Index() *Index {
	x := &Index{byID: map[string]map[string]bool{}}
	if f == nil {
		return x
	}
	for _, g := range f.Grants {
		if x.byID[g.ID] == nil {
			x.byID[g.ID] = map[string]bool{}
		}
		x.byID[g.ID][g.Fingerprint] = true
	}
	return x
}

// Verdict is File.Verdict: Trusted when exactly (id, fingerprint) is
// granted, Modified when the id has grants for other fingerprints only,
// Untrusted when it has none.
func (x *Index) Verdict(id, fingerprint string) Verdict {
	fps, ok := x.byID[id]
	switch {
	case !ok:
		return untrusted
	case fps[fingerprint]:
		return Trusted
	}
	return Modified
}
