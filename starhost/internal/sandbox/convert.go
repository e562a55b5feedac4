package sandbox

// ConvertAll converts every element of in with of; nil stays nil. starhost
// and the packages nested under it (toolwire) turn their values into the
// ones they export with it, so no exported API carries it. It lives in this
// package, the internal one starhost links already, because a package of
// its own would cost the minimal embedder a package over its bar
// (internal/embedmin/lean_test.go).
func ConvertAll[T, U any](in []T, of func(T) U) []U {
	if in == nil {
		return nil
	}
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = of(v)
	}
	return out
}
